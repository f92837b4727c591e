//===- InitAll.h - dialects every gdn tool registers ------------*- C++ -*-===//

#ifndef GDN_INITALL_INITALL_H
#define GDN_INITALL_INITALL_H

namespace mlir {
class DialectRegistry;
namespace gdn {

/// The gdn dialect plus the upstream dialects (and their bufferization and
/// LLVM-translation interfaces) that kernels and pipelines use.
void registerGDNDialects(DialectRegistry &registry);

} // namespace gdn
} // namespace mlir

#endif // GDN_INITALL_INITALL_H
