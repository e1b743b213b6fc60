//===- PTXDialect.cpp - ptx dialect ---------------------------------------===//

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace kaio::ptx;

#include "Kaio/Dialect/PTX/IR/PTXDialect.cpp.inc"

void PTXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Kaio/Dialect/PTX/IR/PTXOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Kaio/Dialect/PTX/IR/PTXHopperOps.cpp.inc"
      >();
}

static bool isArgAttrName(StringRef name) {
  return name == PTXDialect::kParamNameAttrName ||
         name == PTXDialect::kPtrElementAttrName ||
         name == PTXDialect::kReadOnlyAttrName ||
         name == PTXDialect::kAlignAttrName ||
         name == PTXDialect::kSignedAttrName ||
         name == PTXDialect::kTensorMapAttrName;
}

LogicalResult kaio::ptx::verifyTargetRequirement(Operation *op) {
  ModuleOp module = op->getParentOfType<ModuleOp>();
  while (module && !module->hasAttr(PTXDialect::kTargetAttrName) &&
         !module->hasAttr(PTXDialect::kVersionAttrName))
    module = module->getParentOfType<ModuleOp>();
  if (!module)
    return success();
  // Malformed attributes are reported by the module's own verifier.
  const ChipInfo *chip = nullptr;
  if (auto target =
          module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName))
    chip = lookupChip(target.getValue());
  std::optional<unsigned> version;
  if (auto v = module->getAttrOfType<StringAttr>(PTXDialect::kVersionAttrName))
    version = parseISA(v.getValue());

  PTXRequirement req = cast<InstructionOpInterface>(op).getPTXRequirement();
  if (chip && !satisfies(*chip, req))
    return op->emitOpError() << "requires " << formatSMRequirement(req)
                             << ", but the module targets "
                             << chip->name;
  if (version && req.isa > *version)
    return op->emitOpError() << "requires PTX ISA " << formatISA(req.isa)
                             << ", but the module sets ptx.version "
                             << formatISA(*version);
  return success();
}

/// Checks the module's target attributes. Each instruction checks that it is
/// available on them (verifyTargetRequirement).
LogicalResult PTXDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (isArgAttrName(name))
    return op->emitError() << "'" << name
                           << "' is only valid on ptx.entry arguments";
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << name
                           << "' is only valid on a builtin.module";
  if (name == kAddressSizeAttrName) {
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!size || size.getInt() != 64)
      return op->emitError() << "'" << name << "' must be 64";
    return success();
  }
  std::optional<unsigned> version;
  if (auto v = op->getAttrOfType<StringAttr>(kVersionAttrName))
    version = parseISA(v.getValue());
  if (name == kVersionAttrName) {
    auto text = dyn_cast<StringAttr>(attr.getValue());
    if (!text || !version)
      return op->emitError() << "'" << name
                             << "' must be a version string like \"8.0\"";
    if (*version > kMaxSupportedISA)
      return op->emitError() << "'" << name << "' " << formatISA(*version)
                             << " is newer than PTX ISA "
                             << formatISA(kMaxSupportedISA)
                             << ", the newest the driver compiles";
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
  if (version && *version < chip->minISA)
    return op->emitError() << "ptx.version " << formatISA(*version)
                           << " cannot target " << chip->name << " (needs "
                           << formatISA(chip->minISA) << " or newer)";
  return success();
}

/// Entry argument attributes. Their meaning (pointer parameters only, power
/// of two alignment) is checked by ptx.entry's verifier.
LogicalResult PTXDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (!isArgAttrName(name))
    return op->emitError() << "unknown ptx argument attribute '" << name
                           << "'";
  if (!isa<EntryOp>(op))
    return op->emitError() << "'" << name
                           << "' is only valid on ptx.entry arguments";
  Attribute value = attr.getValue();
  if (name == kParamNameAttrName) {
    auto text = dyn_cast<StringAttr>(value);
    // A PTX identifier: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
    auto isIdentChar = [](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '$';
    };
    bool valid =
        text && !text.getValue().empty() &&
        llvm::all_of(text.getValue().drop_front(), isIdentChar) &&
        (llvm::isAlpha(text.getValue().front()) ||
         (StringRef("_$%").contains(text.getValue().front()) &&
          text.getValue().size() > 1));
    if (!valid)
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a PTX identifier string";
    return success();
  }
  if (name == kPtrElementAttrName && !isa<TypeAttr>(value))
    return op->emitError() << "'" << name << "' of argument #" << argIndex
                           << " must be a type";
  if ((name == kReadOnlyAttrName || name == kTensorMapAttrName) &&
      !isa<UnitAttr>(value))
    return op->emitError() << "'" << name << "' of argument #" << argIndex
                           << " must be a unit attribute";
  if (name == kSignedAttrName) {
    if (!isa<UnitAttr>(value))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a unit attribute";
    auto entry = cast<EntryOp>(op);
    Type type = argIndex < entry.getArgumentTypes().size()
                    ? entry.getArgumentTypes()[argIndex]
                    : Type();
    if (!type || !isa<IntegerType>(type) || type.isInteger(1))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " marks integer parameters only";
    return success();
  }
  if (name == kAlignAttrName && !isa<IntegerAttr>(value))
    return op->emitError() << "'" << name << "' of argument #" << argIndex
                           << " must be an integer";
  return success();
}
