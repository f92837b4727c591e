//===- KernelCompiler.cpp - parse, lower, JIT and launch on the CPU -------===//

#include "gdn/Compiler/KernelCompiler.h"
#include "gdn/Dialect/AttrNames.h"
#include "JitRuntimeSymbols.h"
#include "KernelSource.h"
#include "gdn/Runtime/MemRefDescriptor.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

using namespace gdn;

struct CPUKernel::Impl {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> tileModule;
  mlir::OwningOpRef<mlir::ModuleOp> llvmModule;
  std::function<llvm::Error(llvm::Module *)> optimizer; // outlives engine
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::string specialisedSource;
  std::map<std::string, void (*)(void **)> entries; // JIT-compiled
  std::map<std::string, LaunchPlan> plans;          // by entry
  KernelShape shape; // as specialised (with the schedule's v-block)

  explicit Impl(mlir::DialectRegistry &registry) : context(registry) {}
};

CPUKernel::CPUKernel(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
CPUKernel::~CPUKernel() = default;

namespace {

/// LLVM optimisation level of CPU kernels: GDN_CPU_OPT_LEVEL (0 to 3), else
/// none (O3 for the IR, the host's default for machine code). The test
/// suite's schedule matrix runs at 0: it checks what the schedules compute,
/// and O3's machine code generation is most of a test run's time.
std::optional<unsigned> cpuOptLevelOverride() {
  const char *env = std::getenv("GDN_CPU_OPT_LEVEL");
  if (env && env[0] >= '0' && env[0] <= '3' && env[1] == '\0')
    return env[0] - '0';
  return std::nullopt;
}

llvm::CodeGenOptLevel codeGenOptLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}
std::string describeType(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

mlir::Type elementTypeFor(mlir::MLIRContext &ctx, DType dtype) {
  mlir::Builder b(&ctx);
  switch (dtype) {
  case DType::BF16: return b.getBF16Type();
  case DType::F16: return b.getF16Type();
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  }
  return {};
}
} // namespace

Status CPUKernel::compile(const CompileOptions &options,
                          std::unique_ptr<CPUKernel> &result) {
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  auto impl = std::make_unique<Impl>(registry);
  impl->context.loadAllAvailableDialects();
  CapturedDiagnostics diags(impl->context);
  if (Status s = resolveKernelShape(options, impl->shape); !s.ok())
    return s;
  if (Status s = parseKernel(options, impl->shape, impl->context, diags,
                             impl->specialisedSource, impl->tileModule);
      !s.ok())
    return s;

  if (Status s = scheduleKernel(options, impl->context, diags,
                                *impl->tileModule, impl->plans);
      !s.ok())
    return s;

  impl->llvmModule = impl->tileModule->clone();
  // The launch plan is read; its marks have no meaning below the tile level.
  for (auto func : impl->llvmModule->getOps<mlir::func::FuncOp>()) {
    for (llvm::StringRef mark :
         {mlir::gdn::attrs::kEntry, mlir::gdn::attrs::kStep, mlir::gdn::attrs::kGridZ, mlir::gdn::attrs::kSchedule,
          mlir::gdn::attrs::kSegmentChunks, mlir::gdn::attrs::kExtraChunkInSegmentZero,
          mlir::gdn::attrs::kFirstSegmentChunks, mlir::gdn::attrs::kNoPrefetch,
          mlir::gdn::attrs::kSpecializedFrom, mlir::gdn::attrs::kBoundArgs})
      func->removeAttr(mark);
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, mlir::gdn::attrs::kWorkspace);
  }
  mlir::PassManager pm(&impl->context);
  if (options.printIRAfterAll) {
    impl->context.disableMultithreading();
    pm.enableIRPrinting();
  }
  mlir::gdn::buildCPULowering(pm);
  if (mlir::failed(pm.run(*impl->llvmModule)))
    return Status::error("lowering kernel '" + options.kernelPath +
                         "' for the CPU failed:\n" + diags.text);
  result.reset(new CPUKernel(std::move(impl)));
  return Status::success();
}

Status CPUKernel::emit(EmitKind kind, std::string &text) const {
  llvm::raw_string_ostream os(text);
  switch (kind) {
  case EmitKind::TileIR:
    os << impl->specialisedSource;
    return Status::success();
  case EmitKind::Scheduled:
    impl->tileModule->print(os);
    return Status::success();
  case EmitKind::LLVMDialect:
    impl->llvmModule->print(os);
    return Status::success();
  case EmitKind::LLVMIR: {
    llvm::LLVMContext llvmContext;
    auto module = mlir::translateModuleToLLVMIR(*impl->llvmModule, llvmContext);
    if (!module)
      return Status::error("translation of the lowered kernel to LLVM IR failed");
    module->print(os, nullptr);
    return Status::success();
  }
  }
  return Status::error("unknown emit kind");
}

const KernelShape &CPUKernel::shape() const { return impl->shape; }

LaunchPlan CPUKernel::plan(const std::string &entry) const {
  auto it = impl->plans.find(entry);
  if (it != impl->plans.end())
    return it->second;
  LaunchPlan single = LaunchPlan::single(entry);
  single.programsPerHead = impl->shape.programsPerHead();
  return single;
}

std::string CPUKernel::entryFor(const std::string &entry,
                                const std::vector<KernelArg> &args) const {
  return pickEntry(impl->plans, entry, args);
}

Status CPUKernel::checkArguments(const std::string &entry,
                                 const std::vector<KernelArg> &args) const {
  auto func = impl->tileModule->lookupSymbol<mlir::func::FuncOp>(entry);
  if (!func || func.isExternal())
    return Status::error("the kernel has no entry function @" + entry);
  auto inputs = func.getFunctionType().getInputs();
  if (inputs.size() != args.size())
    return Status::error("kernel @" + entry + " takes " +
                         std::to_string(inputs.size()) + " arguments, the " +
                         "driver passes " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &arg = args[i];
    mlir::Type type = inputs[i];
    std::string where = "kernel @" + entry + " argument " + std::to_string(i) +
                        " (" + arg.name + ") is " + describeType(type);
    if (arg.kind != KernelArg::Kind::Buffer &&
        arg.kind != KernelArg::Kind::Workspace) {
      bool ok = (arg.kind == KernelArg::Kind::Index && type.isIndex()) ||
                (arg.kind == KernelArg::Kind::F32 && type.isF32()) ||
                (arg.kind == KernelArg::Kind::I1 && type.isInteger(1));
      if (!ok)
        return Status::error(where + ", not the scalar the driver passes");
      continue;
    }
    auto memref = mlir::dyn_cast<mlir::MemRefType>(type);
    if (!memref)
      return Status::error(where + ", but the driver passes a tensor");
    if (memref.getRank() != static_cast<int64_t>(arg.shape.size()))
      return Status::error(where + ", got a tensor of rank " +
                           std::to_string(arg.shape.size()));
    if (memref.getElementType() != elementTypeFor(impl->context, arg.dtype))
      return Status::error(where + ", got " + dtypeName(arg.dtype) +
                           " elements");
    for (int64_t d = 0; d < memref.getRank(); ++d) {
      int64_t want = memref.getDimSize(d);
      if (!mlir::ShapedType::isDynamic(want) && want != arg.shape[d])
        return Status::error(where + ", got dimension " + std::to_string(d) +
                             " of size " + std::to_string(arg.shape[d]));
    }
  }
  return Status::success();
}

Status CPUKernel::jit(const std::string &entry) {
  if (!impl->engine) {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Optimise for this host's CPU, so LLVM's vectorisers see its features.
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      return Status::error("cannot detect the host CPU: " +
                           llvm::toString(builder.takeError()));
    auto machine = builder->createTargetMachine();
    if (!machine)
      return Status::error("cannot create a target machine: " +
                           llvm::toString(machine.takeError()));
    // The engine keeps a function_ref to the transformer and runs it when
    // a symbol is first looked up, so it must live as long as the engine.
    std::optional<unsigned> optLevel = cpuOptLevelOverride();
    impl->optimizer = mlir::makeOptimizingTransformer(
        optLevel.value_or(3), /*sizeLevel=*/0, machine->get());
    mlir::ExecutionEngineOptions engineOptions;
    engineOptions.transformer = impl->optimizer;
    if (optLevel)
      engineOptions.jitCodeGenOptLevel = codeGenOptLevel(*optLevel);
    auto engine = mlir::ExecutionEngine::create(*impl->llvmModule,
                                                engineOptions,
                                                std::move(*machine));
    if (!engine)
      return Status::error("JIT compilation failed: " +
                           llvm::toString(engine.takeError()));
    impl->engine = std::move(*engine);
    impl->engine->registerSymbols(jitRuntimeSymbols);
  }
  if (impl->entries.count(entry))
    return Status::success();
  // Looking the entry up compiles the module to machine code.
  auto fn = impl->engine->lookupPacked("_mlir_ciface_" + entry);
  if (!fn)
    return Status::error("cannot find kernel @" + entry +
                         " in the JIT-compiled module (does it carry "
                         "attributes {llvm.emit_c_interface}?): " +
                         llvm::toString(fn.takeError()));
  impl->entries[entry] = *fn;
  return Status::success();
}

Status CPUKernel::launch(const std::string &entry,
                         const std::vector<KernelArg> &args, Grid grid,
                         int threads) {
  if (Status s = checkArguments(entry, args); !s.ok())
    return s;
  if (Status s = jit(entry); !s.ok())
    return s;

  // Argument storage shared by all threads; program ids are per thread.
  std::vector<MemRefDescriptor> descriptors;
  descriptors.reserve(args.size());
  struct Slot {
    void *pointer = nullptr;
    int64_t index = 0;
    float f32 = 0;
    bool i1 = false;
  };
  std::vector<Slot> slots(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &a = args[i];
    switch (a.kind) {
    case KernelArg::Kind::Buffer:
    case KernelArg::Kind::Workspace:
      if (!a.data)
        return Status::error("argument " + a.name + " has no memory");
      descriptors.emplace_back(a.data, a.shape, a.outerStride);
      slots[i].pointer = descriptors.back().get();
      break;
    case KernelArg::Kind::Index: slots[i].index = a.index; break;
    case KernelArg::Kind::F32: slots[i].f32 = a.f32; break;
    case KernelArg::Kind::I1: slots[i].i1 = a.i1; break;
    }
  }
  auto packed = impl->entries[entry];
  auto worker = [&](int64_t first, int64_t last) {
    int64_t pid[3];
    std::vector<void *> packedArgs;
    for (size_t i = 0; i < args.size(); ++i) {
      switch (args[i].kind) {
      case KernelArg::Kind::Buffer:
      case KernelArg::Kind::Workspace:
        packedArgs.push_back(&slots[i].pointer);
        break;
      case KernelArg::Kind::Index: packedArgs.push_back(&slots[i].index); break;
      case KernelArg::Kind::F32: packedArgs.push_back(&slots[i].f32); break;
      case KernelArg::Kind::I1: packedArgs.push_back(&slots[i].i1); break;
      }
    }
    for (int64_t &p : pid)
      packedArgs.push_back(&p);
    for (int64_t linear = first; linear < last; ++linear) {
      pid[0] = linear % grid.x;
      pid[1] = (linear / grid.x) % grid.y;
      pid[2] = linear / (grid.x * grid.y);
      packed(packedArgs.data());
    }
  };
  int64_t total = grid.size();
  int64_t n = std::max<int64_t>(1, std::min<int64_t>(threads, total));
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < n; ++t)
    pool.emplace_back(worker, total * t / n, total * (t + 1) / n);
  for (auto &th : pool)
    th.join();
  return Status::success();
}
