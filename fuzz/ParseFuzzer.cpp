//===- ParseFuzzer.cpp - arbitrary bytes through the parser and verifiers -===//
//
// Any input must end in a module or a diagnostic: never an assertion, a
// crash or a hang.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto module = gdn::fuzz::parse(data, size);
  if (module) {
    // Printing walks every op's custom printer.
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return 0;
}
