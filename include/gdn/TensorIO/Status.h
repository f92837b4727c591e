//===- Status.h - Error reporting without exceptions ------------*- C++ -*-===//
//
// These libraries are linked into LLVM-based tools built with -fno-exceptions,
// so every fallible API returns a Status whose message names the tensor, its
// shape/dtype and what was expected.
//
//===----------------------------------------------------------------------===//
#ifndef GDN_TENSORIO_STATUS_H
#define GDN_TENSORIO_STATUS_H

#include <string>
#include <utility>

namespace gdn {

struct Status {
  std::string message; // empty means success
  // The value has the wrong type (a tensor's dtype), not a wrong value or
  // shape: the Python entry raises TypeError instead of ValueError.
  bool wrongType = false;

  bool ok() const { return message.empty(); }
  explicit operator bool() const { return ok(); }

  static Status success() { return Status(); }
  static Status error(std::string msg) {
    Status s;
    s.message = msg.empty() ? std::string("unknown error") : std::move(msg);
    return s;
  }
  static Status typeError(std::string msg) {
    Status s = error(std::move(msg));
    s.wrongType = true;
    return s;
  }
};

} // namespace gdn

#endif // GDN_TENSORIO_STATUS_H
