//===- Algorithms.h - One segment of one sequence and head ------*- C++ -*-===//
#ifndef GDN_LIB_REFERENCE_ALGORITHMS_H
#define GDN_LIB_REFERENCE_ALGORITHMS_H

#include "PreparedInputs.h"

namespace gdn {

/// Advance state M (V x K, row-major) of value head hv over packed tokens
/// [begin, end), writing o rows ([T, HV, V]) of those tokens.

/// The literal recurrence of SPEC.md, token by token.
void advanceRecurrent(const PreparedInputs &in, int64_t hv, int64_t begin,
                      int64_t end, double *state, double *o);

/// SPEC.md's WY form for one chunk of end - begin tokens.
void advanceChunkWY(const PreparedInputs &in, int64_t hv, int64_t begin,
                    int64_t end, double *state, double *o);

/// One sequence: where its state comes from and where it goes.
struct SequenceSchedule {
  int64_t tokenBegin = 0; // first packed token
  int64_t numTokens = 0;
  /// Absolute position of the first token modulo the chunk size (paged:
  /// p_b; pool: 0, chunks start at the first new token).
  int64_t chunkPhase = 0;
  int64_t initialRow = -1; // pool row to read, -1 for the zero state
  struct Write {
    int64_t afterTokens; // after this many of the sequence's new tokens
    int64_t row;
  };
  std::vector<Write> writes; // ascending afterTokens; the last is numTokens
};

/// Runs all value heads of one sequence, splitting it at chunk boundaries
/// and write points.
void runSequence(const PreparedInputs &in, Algorithm algorithm,
                 int64_t chunkSize, const SequenceSchedule &schedule,
                 std::vector<double> &statePool, std::vector<double> &o);

} // namespace gdn

#endif
