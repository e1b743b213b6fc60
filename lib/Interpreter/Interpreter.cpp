//===- Interpreter.cpp - the interpreter's public API ---------------------===//

#include "Kaio/Interpreter/Interpreter.h"

#include "Internal.h"
#include "Kaio/Interpreter/FloatSemantics.h"
#include "Kaio/Runtime/BlockBounds.h"
#include "Kaio/Runtime/Types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include <cstring>

using namespace mlir;
using namespace kaio::ptx;
using namespace kaio::interp;
using namespace kaio::interp::detail;

std::string LaunchResult::message() const {
  std::string s;
  for (const std::string &e : errors)
    s += e + "\n";
  return s;
}

Buffer *Interpreter::Impl::findBuffer(uint64_t addr) {
  auto it = buffers.upper_bound(addr);
  if (it == buffers.begin())
    return nullptr;
  --it;
  Buffer &b = it->second;
  return addr - b.base < b.size ? &b : nullptr;
}

uint64_t Interpreter::Impl::allocate(uint64_t bytes, uint64_t align) {
  align = std::max<uint64_t>(align, 256);
  uint64_t base = (nextAddress + align - 1) / align * align;
  Buffer b;
  b.base = base;
  b.size = bytes;
  b.data.reset(new uint8_t[std::max<uint64_t>(bytes, 1)]());
  buffers.emplace(base, std::move(b));
  // A gap after every allocation: an address just past one buffer never
  // falls into the next.
  nextAddress = base + std::max<uint64_t>(bytes, 1) + 256;
  return base;
}

Interpreter::Interpreter(ModuleOp module) : impl(std::make_unique<Impl>()) {
  impl->module = module;
  if (auto target = module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName))
    if (const ChipInfo *chip = lookupChip(target.getValue()))
      impl->maxSharedPerBlock = chip->maxSharedPerBlock;
  for (auto var : module.getOps<GlobalVarOp>()) {
    if (var.getSpace() == StateSpace::shared)
      continue;
    uint64_t align = var.getAlignment() ? *var.getAlignment() : 16;
    impl->varAddress[var.getSymName()] =
        impl->allocate(var.getSizeInBytes(), align);
  }
}

Interpreter::~Interpreter() = default;

uint64_t Interpreter::allocGlobal(uint64_t bytes, uint64_t align) {
  return impl->allocate(bytes, align);
}

bool Interpreter::freeGlobal(uint64_t address) {
  return impl->buffers.erase(address) != 0;
}

uint64_t Interpreter::allocTensorMap(const kaio::rt::TensorMapDesc &desc) {
  unsigned char bytes[kaio::rt::kTensorMapBytes];
  kaio::rt::encodeKaioTensorMap(desc, bytes);
  uint64_t address = allocGlobal(sizeof(bytes), 64);
  write(address, bytes, sizeof(bytes));
  return address;
}

bool Interpreter::write(uint64_t address, const void *data, uint64_t bytes) {
  Buffer *b = impl->findBuffer(address);
  if (!b || address - b->base + bytes > b->size)
    return bytes == 0;
  std::memcpy(b->data.get() + (address - b->base), data, bytes);
  return true;
}

bool Interpreter::read(uint64_t address, void *data, uint64_t bytes) const {
  const Buffer *b = impl->findBuffer(address);
  if (!b || address - b->base + bytes > b->size)
    return bytes == 0;
  std::memcpy(data, b->data.get() + (address - b->base), bytes);
  return true;
}

std::optional<uint64_t>
Interpreter::getVariableAddress(llvm::StringRef symbol) const {
  auto it = impl->varAddress.find(symbol);
  if (it == impl->varAddress.end())
    return std::nullopt;
  return it->second;
}

uint64_t Interpreter::argF32(float value) { return f32ToBits(value); }
uint64_t Interpreter::argF64(double value) { return f64ToBits(value); }

LaunchResult Interpreter::launch(llvm::StringRef name, Dim3 grid, Dim3 block,
                                 llvm::ArrayRef<uint64_t> args,
                                 const LaunchOptions &options) {
  LaunchResult result;
  auto fail = [&](const Twine &msg) {
    result.errors.push_back(("kernel '" + name + "': " + msg).str());
    return result;
  };
  auto it = impl->programs.find(name);
  if (it == impl->programs.end()) {
    EntryOp entry;
    for (auto e : impl->module.getOps<EntryOp>())
      if (e.getSymName() == name)
        entry = e;
    if (!entry)
      return fail("no ptx.entry of this name in the module");
    std::string error;
    std::unique_ptr<Program> program =
        decodeKernel(entry, impl->varAddress, error);
    if (!program)
      return fail(error);
    it = impl->programs.try_emplace(name, std::move(program)).first;
  }
  const Program &program = *it->second;
  if (args.size() != program.paramSlots.size())
    return fail("expected " + Twine(program.paramSlots.size()) +
                " arguments, got " + Twine(args.size()));
  if (grid.count() == 0 || block.count() == 0)
    return fail("empty grid or block");
  if (block.x > 1024 || block.y > 1024 || block.z > 64 || block.count() > 1024)
    return fail("a block has at most 1024 threads and z <= 64");
  // A kernel that names its cluster (reqnctapercluster) gets it; a launch
  // that names another fails.
  LaunchOptions effective = options;
  if (!program.reqnctapercluster.empty()) {
    Dim3 required;
    uint32_t *dims[3] = {&required.x, &required.y, &required.z};
    for (auto [i, d] : llvm::enumerate(program.reqnctapercluster))
      *dims[i] = uint32_t(d);
    const Dim3 &asked = options.cluster;
    if (asked.count() == 1)
      effective.cluster = required;
    else if (asked.x != required.x || asked.y != required.y ||
             asked.z != required.z)
      return fail("the launch's cluster (" + Twine(asked.x) + "," +
                  Twine(asked.y) + "," + Twine(asked.z) +
                  ") differs from the kernel's reqnctapercluster (" +
                  Twine(required.x) + "," + Twine(required.y) + "," +
                  Twine(required.z) + ")");
  }
  const Dim3 &cluster = effective.cluster;
  if (cluster.count() == 0 || cluster.count() > kaio::rt::kMaxClusterBlocks)
    return fail("a cluster has 1 to " + Twine(kaio::rt::kMaxClusterBlocks) +
                " blocks, not " + Twine(cluster.count()));
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return fail("the grid (" + Twine(grid.x) + "," + Twine(grid.y) + "," +
                Twine(grid.z) + ") is not a whole number of clusters (" +
                Twine(cluster.x) + "," + Twine(cluster.y) + "," +
                Twine(cluster.z) + ")");
  // The runtime's contract for the compiled block (.reqntid and
  // .maxntid), in its words.
  for (bool exact : {true, false}) {
    ArrayRef<int32_t> compiled = exact ? program.reqntid : program.maxntid;
    std::array<unsigned, 3> compiledDims = {1, 1, 1};
    for (auto [i, d] : llvm::enumerate(compiled.take_front(3)))
      compiledDims[i] = unsigned(d);
    std::string mismatch = kaio::rt::describeBlockMismatch(
        {block.x, block.y, block.z}, compiledDims,
        unsigned(std::min<size_t>(compiled.size(), 3)), exact);
    if (!mismatch.empty())
      return fail(mismatch);
  }
  // A kernel whose tiles live in dynamic shared memory gets at least the
  // bytes it declares (`dynamic_smem`), as the runtime launches it.
  effective.dynamicSharedBytes =
      std::max<uint64_t>(options.dynamicSharedBytes, program.requiredDynamicShared);
  uint64_t shared = program.dynamicSharedOffset + effective.dynamicSharedBytes;
  if (shared > impl->maxSharedPerBlock)
    return fail("needs " + Twine(shared) + " bytes of shared memory; the "
                "target allows " + Twine(impl->maxSharedPerBlock));
  return runKernel(*impl, program, grid, block, args, effective);
}
