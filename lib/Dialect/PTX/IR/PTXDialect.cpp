//===- PTXDialect.cpp - ptx dialect ---------------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace kaio::ptx;

#include "Kaio/Dialect/PTX/IR/PTXDialect.cpp.inc"

void PTXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Kaio/Dialect/PTX/IR/PTXOps.cpp.inc"
      >();
}

/// Checks the module's target attributes, then that every instruction in the
/// module is available on that target and ISA version.
LogicalResult PTXDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kParamNameAttrName || name == kPtrElementAttrName ||
      name == kReadOnlyAttrName || name == kAlignAttrName)
    return success(); // Argument attributes, checked by ptx.entry.
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << name
                           << "' is only valid on a builtin.module";
  if (name == kAddressSizeAttrName) {
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!size || size.getInt() != 64)
      return op->emitError() << "'" << name << "' must be 64";
    return success();
  }
  if (name == kVersionAttrName) {
    auto version = dyn_cast<StringAttr>(attr.getValue());
    if (!version || !parseISA(version.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a version string like \"8.0\"";
    return success();
  }
  if (name != kTargetAttrName)
    return op->emitError() << "unknown ptx module attribute '" << name << "'";

  auto target = dyn_cast<StringAttr>(attr.getValue());
  const ChipInfo *chip = target ? lookupChip(target.getValue()) : nullptr;
  if (!chip) {
    InFlightDiagnostic diag = op->emitError()
                              << "'" << name << "' must name a known chip:";
    for (const ChipInfo &c : getChips())
      diag << " " << c.name;
    return diag;
  }
  std::optional<unsigned> version;
  if (auto v = op->getAttrOfType<StringAttr>(kVersionAttrName))
    version = parseISA(v.getValue());
  if (version && *version < chip->minISA)
    return op->emitError() << "PTX ISA " << formatISA(*version)
                           << " cannot target " << chip->name
                           << " (needs " << formatISA(chip->minISA) << ")";

  WalkResult result = op->walk([&](InstructionOpInterface inst) {
    PTXRequirement req = inst.getPTXRequirement();
    if (!satisfies(*chip, req)) {
      inst->emitOpError() << "requires " << formatSM(req)
                          << " or newer, but the module targets "
                          << chip->name;
      return WalkResult::interrupt();
    }
    if (version && req.isa > *version) {
      inst->emitOpError() << "requires PTX ISA " << formatISA(req.isa)
                          << ", but the module sets ptx.version "
                          << formatISA(*version);
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
