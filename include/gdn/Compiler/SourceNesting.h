//===- SourceNesting.h - bracket depth of MLIR source text ------*- C++ -*-===//
//
// MLIR's parser recurses once per nested bracket (attributes, types,
// regions) with no limit of its own: a few thousand levels overflow the
// stack. Kernel files are checked first, so that such input gets an error
// naming where it nests too deep instead of a crash. Header-only: the
// fuzzers apply the same check before they parse.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_COMPILER_SOURCENESTING_H
#define GDN_COMPILER_SOURCENESTING_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace gdn {

/// Deeper than any kernel (ours nest about 10 levels), far below where the
/// parser's recursion overflows a default stack.
constexpr unsigned kMaxSourceNesting = 256;

/// The offset of the first bracket that opens level `limit + 1` of
/// `( [ { <` in `text`, outside string literals and `//` comments (`->` is
/// not a closing bracket); none when the text never nests that deep.
/// Unbalanced closers only bring the depth back to 0.
inline std::optional<size_t> firstTooDeepBracket(std::string_view text,
                                                 unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string literal, with backslash escapes
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return i;
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      if (depth > 0)
        --depth;
    }
  }
  return std::nullopt;
}

} // namespace gdn

#endif // GDN_COMPILER_SOURCENESTING_H
