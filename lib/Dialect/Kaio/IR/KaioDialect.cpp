//===- KaioDialect.cpp - kaio dialect, types and attributes ---------------===//

#include "Kaio/Dialect/Kaio/IR/KaioDialect.h"
#include "Kaio/Dialect/Kaio/IR/KaioOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace kaio;

#include "Kaio/Dialect/Kaio/IR/KaioDialect.cpp.inc"
#include "Kaio/Dialect/Kaio/IR/KaioEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Kaio/Dialect/Kaio/IR/KaioTypes.cpp.inc"

void KaioDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Kaio/Dialect/Kaio/IR/KaioOps.cpp.inc"
      >();
}

void KaioDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Kaio/Dialect/Kaio/IR/KaioTypes.cpp.inc"
      >();
}

void KaioDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Kaio/Dialect/Kaio/IR/KaioAttrs.cpp.inc"
      >();
}

LogicalResult KaioDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kExactBlockSizeAttrName ||
      attr.getName() == kAlignedCopiesAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<KernelOp>(op))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is a unit attribute of kaio.kernel";
    return success();
  }
  if (attr.getName() == kUnrollAttrName) {
    auto factor = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !factor || factor.getInt() < 1 ||
        factor.getInt() > kMaxUnroll)
      return op->emitError() << "'" << kUnrollAttrName
                             << "' is an integer from 1 to " << kMaxUnroll
                             << " on an scf.for";
    return success();
  }
  if (attr.getName() == kPipelineStagesAttrName) {
    auto stages = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !stages || stages.getInt() < 2 ||
        stages.getInt() > kMaxPipelineStages)
      return op->emitError() << "'" << kPipelineStagesAttrName
                             << "' is an integer from 2 to "
                             << kMaxPipelineStages << " on an scf.for";
    return success();
  }
  if (attr.getName() == kPipelinePrefetchAttrName) {
    auto stages = op->getAttrOfType<IntegerAttr>(kPipelineStagesAttrName);
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()) || !stages ||
        stages.getInt() < 3)
      return op->emitError() << "'" << kPipelinePrefetchAttrName
                             << "' is a unit attribute of an scf.for with '"
                             << kPipelineStagesAttrName << "' of at least 3";
    return success();
  }
  if (attr.getName() != kTargetAttrName)
    return success();
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name)
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a string naming a chip, e.g. \"sm_80\"";
  if (!ptx::lookupChip(name.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' names an unknown chip '" << name.getValue()
                           << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  FailureOr<MatrixOrder> order;
  int64_t pad = 0, swizzle[3] = {0, 0, 0};
  bool seenPad = false, seenSwizzle = false;
  if (parser.parseLess() ||
      failed(order = FieldParser<MatrixOrder>::parse(parser)))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    bool isPad = key == "pad";
    if (!isPad && key != "swizzle") {
      parser.emitError(loc) << "expected 'pad' or 'swizzle'";
      return {};
    }
    bool &seen = isPad ? seenPad : seenSwizzle;
    if (seen) {
      parser.emitError(loc) << "'" << key << "' is given twice";
      return {};
    }
    seen = true;
    if (parser.parseEqual())
      return {};
    if (isPad) {
      if (parser.parseInteger(pad))
        return {};
      continue;
    }
    // swizzle = <bits, base, shift>
    if (parser.parseLess() || parser.parseInteger(swizzle[0]) ||
        parser.parseComma() || parser.parseInteger(swizzle[1]) ||
        parser.parseComma() || parser.parseInteger(swizzle[2]) ||
        parser.parseGreater())
      return {};
  }
  if (parser.parseGreater())
    return {};
  return LayoutAttr::get(parser.getContext(), *order, pad, swizzle[0],
                         swizzle[1], swizzle[2]);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMatrixOrder(getOrder());
  if (getPad())
    printer << ", pad = " << getPad();
  if (isSwizzled())
    printer << ", swizzle = <" << getSwizzleBits() << ", " << getSwizzleBase()
            << ", " << getSwizzleShift() << ">";
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static bool isScalarElement(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return llvm::is_contained({4u, 8u, 16u, 32u, 64u}, i.getWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// What shared tiles and tensor maps hold: the scalars, and the 8-bit
/// floats (E4M3, E5M2) that TMA moves and warpgroup_mma multiplies.
static bool isTileElement(Type type) {
  return isScalarElement(type) || isFloat8(type);
}

static unsigned elementBytes(Type type) {
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type elementType) {
  if (!isScalarElement(elementType) || elementType.isInteger(4))
    return emitError() << "pointer element must be an integer of 8, 16, 32 "
                          "or 64 bits or f16/bf16/f32/f64, got "
                       << elementType;
  return success();
}

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               LayoutAttr layout) {
  if (shape.empty() || shape.size() > 2)
    return emitError() << "shared tiles have 1 or 2 dimensions";
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "shared tile dimensions must be positive";
  if (!isTileElement(elementType) || elementType.isInteger(4))
    return emitError() << "shared tile element must be a scalar or an 8-bit "
                          "float (f8E4M3FN, f8E5M2), got "
                       << elementType;
  if (layout) {
    if (shape.size() != 2)
      return emitError() << "a layout applies to 2-D tiles only";
    if (layout.getPad() < 0)
      return emitError() << "pad must be >= 0";
    if (layout.isSwizzled()) {
      int64_t bits = layout.getSwizzleBits(), base = layout.getSwizzleBase(),
              shift = layout.getSwizzleShift();
      if (bits < 0 || base < 0 || shift < bits || base + shift + bits > 32)
        return emitError() << "swizzle <" << bits << ", " << base << ", "
                           << shift
                           << "> is not a swizzle: need bits > 0, base >= 0, "
                              "shift >= bits and base + shift + bits <= 32";
      if (layout.getPad())
        return emitError() << "a layout either pads or swizzles, not both";
      if (layout.getOrder() != MatrixOrder::row_major)
        return emitError() << "swizzled layouts are row-major";
      unsigned eb = elementBytes(elementType);
      if ((int64_t(1) << base) < eb)
        return emitError() << "swizzle base " << base
                           << " would split " << eb << "-byte elements";
      int64_t bytes = shape[0] * shape[1] * eb;
      int64_t segment = int64_t(1) << (base + bits);
      if (bytes % segment)
        return emitError() << "swizzle <" << bits << ", " << base << ", "
                           << shift << "> permutes " << segment
                           << "-byte segments; the tile has " << bytes
                           << " bytes";
    }
  }
  return success();
}

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> box, Type elementType, int64_t swizzle) {
  if (box.empty() || box.size() > 5)
    return emitError() << "a tensor map box has 1 to 5 dimensions";
  for (int64_t d : box)
    if (d < 1 || d > 256)
      return emitError() << "tensor map box dimensions are 1 to 256, got "
                         << d;
  if (!isTileElement(elementType) || elementType.isInteger(4))
    return emitError() << "tensor map element must be a scalar or an 8-bit "
                          "float (f8E4M3FN, f8E5M2), got "
                       << elementType;
  if (!llvm::is_contained({0, 32, 64, 128}, swizzle))
    return emitError() << "tensor map swizzle is 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  int64_t inner = box.back() * elementBytes(elementType);
  if (inner % 16)
    return emitError() << "the box's inner dimension is " << inner
                       << " bytes; TMA needs a multiple of 16";
  if (swizzle && inner > swizzle)
    return emitError() << "the box's inner dimension is " << inner
                       << " bytes, wider than its " << swizzle
                       << "-byte swizzle";
  return success();
}

int64_t TensorMapType::getBoxBytes() const {
  int64_t n = elementBytes(getElementType());
  for (int64_t d : getBox())
    n *= d;
  return n;
}

Type TensorMapType::parse(AsmParser &parser) {
  SmallVector<int64_t> box;
  Type elementType;
  int64_t swizzle = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(box, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      (parser.parseKeyword("swizzle") || parser.parseEqual() ||
       parser.parseInteger(swizzle)))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TensorMapType>(parser.getContext(), box,
                                          elementType, swizzle);
}

void TensorMapType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getBox())
    printer << d << "x";
  printer << getElementType();
  if (getSwizzle())
    printer << ", swizzle = " << getSwizzle();
  printer << ">";
}

Type SmemType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  LayoutAttr layout;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseCustomAttributeWithFallback(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SmemType>(parser.getContext(), shape, elementType,
                                     layout);
}

void SmemType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getLayout()) {
    printer << ", ";
    printer.printStrippedAttrOrType(getLayout());
  }
  printer << ">";
}

int64_t SmemType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

bool SmemType::isColumnMajor() const {
  return getLayout() && getLayout().getOrder() == MatrixOrder::col_major;
}

int64_t SmemType::getRowStride() const {
  ArrayRef<int64_t> shape = getShape();
  int64_t contiguous = isColumnMajor() ? shape.front() : shape.back();
  return getLayout() ? contiguous + getLayout().getPad() : contiguous;
}

int64_t SmemType::getSizeInBytes() const {
  ArrayRef<int64_t> shape = getShape();
  int64_t lines = isColumnMajor() ? shape.back() : shape.front();
  int64_t elems = shape.size() == 2 ? lines * getRowStride() : shape[0];
  return elems * elementBytes(getElementType());
}

int64_t SmemType::getAlignment() const {
  if (LayoutAttr layout = getLayout(); layout && layout.isSwizzled())
    return std::clamp<int64_t>(layout.getSwizzle().periodBytes(), 16, 1024);
  return 16;
}

std::optional<ptx::PTXType> kaio::getMmaElementType(FragType type) {
  Type e = type.getElementType();
  if (e.isF16())
    return ptx::PTXType::f16;
  if (e.isBF16())
    return ptx::PTXType::bf16;
  if (e.isF32())
    return type.getRole() == FragRole::acc ? ptx::PTXType::f32
                                           : ptx::PTXType::tf32;
  if (auto i = dyn_cast<IntegerType>(e)) {
    bool isUnsigned = i.isUnsigned();
    switch (i.getWidth()) {
    case 4:
      return isUnsigned ? ptx::PTXType::u4 : ptx::PTXType::s4;
    case 8:
      return isUnsigned ? ptx::PTXType::u8 : ptx::PTXType::s8;
    case 32:
      if (type.getRole() == FragRole::acc)
        return ptx::PTXType::s32;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

const ptx::MmaVariant *kaio::lookupMma(FragType a, FragType b, FragType acc) {
  auto at = getMmaElementType(a), bt = getMmaElementType(b),
       ct = getMmaElementType(acc);
  if (!at || !bt || !ct || a.getShape() != b.getShape() ||
      a.getShape() != acc.getShape())
    return nullptr;
  return ptx::lookupMma(a.getShape(), *at, *bt, *ct);
}

const ptx::MmaVariant *kaio::lookupMmaFor(FragType frag) {
  std::optional<ptx::PTXType> t = getMmaElementType(frag);
  if (!t)
    return nullptr;
  for (const ptx::MmaVariant &v : ptx::getMmaVariants()) {
    if (v.shape != frag.getShape())
      continue;
    ptx::PTXType want = frag.getRole() == FragRole::a   ? v.aType
                        : frag.getRole() == FragRole::b ? v.bType
                                                        : v.accType;
    if (want == *t)
      return &v;
  }
  return nullptr;
}

FailureOr<SmallVector<AccumulatorSource>>
kaio::getOperandFromAccumulator(FragType acc, FragType a) {
  const ptx::MmaVariant *av = lookupMmaFor(a), *cv = lookupMmaFor(acc);
  if (!av || !cv || acc.getRole() != FragRole::acc || a.getRole() != FragRole::a)
    return failure();
  auto [accRows, accCols] = acc.getAtomExtent();
  auto [aRows, aCols] = a.getAtomExtent();
  if (accRows != aRows || aCols % accCols)
    return failure();
  SmallVector<AccumulatorSource> sources;
  for (unsigned i = 0; i < a.getElementsPerLane(); ++i) {
    std::optional<AccumulatorSource> found;
    for (unsigned k = 0; k < acc.getElementsPerLane() && !found; ++k) {
      bool all = true;
      unsigned atomCol = 0;
      for (unsigned lane = 0; lane < 32 && all; ++lane) {
        ptx::FragmentCoord x = ptx::getMmaACoord(*av, lane, i);
        ptx::FragmentCoord y = ptx::getMmaAccCoord(*cv, lane, k);
        if (lane == 0)
          atomCol = x.col / accCols;
        all = x.row == y.row && x.col / accCols == atomCol &&
              x.col % accCols == y.col;
      }
      if (all)
        found = AccumulatorSource{atomCol, k};
    }
    if (!found)
      return failure();
    sources.push_back(*found);
  }
  return sources;
}

std::pair<unsigned, unsigned> FragType::getAtomExtent() const {
  ptx::MmaShapeInfo s = ptx::getMmaShapeInfo(getShape());
  switch (getRole()) {
  case FragRole::a:
    return {s.m, s.k};
  case FragRole::b:
    return {s.k, s.n};
  case FragRole::acc:
    return {s.m, s.n};
  }
  return {0, 0};
}

LogicalResult FragType::verify(function_ref<InFlightDiagnostic()> emitError,
                               FragRole, ptx::MMAShape, Type,
                               unsigned tileRows, unsigned tileCols) {
  if (tileRows == 0 || tileCols == 0 || tileRows * tileCols > 256)
    return emitError() << "a fragment tile has 1 to 256 atoms, not "
                       << tileRows << "x" << tileCols;
  return success();
}

Type FragType::parse(AsmParser &parser) {
  FailureOr<FragRole> role;
  FailureOr<ptx::MMAShape> shape;
  Type elementType;
  if (parser.parseLess() ||
      failed(role = FieldParser<FragRole>::parse(parser)) ||
      parser.parseComma() ||
      failed(shape = FieldParser<ptx::MMAShape>::parse(parser)) ||
      parser.parseComma() || parser.parseType(elementType))
    return {};
  SmallVector<int64_t, 2> tile = {1, 1};
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    tile.clear();
    if (parser.parseDimensionList(tile, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return {};
    if (tile.size() != 2 || tile[0] <= 0 || tile[1] <= 0) {
      parser.emitError(loc) << "expected a tile shape ROWSxCOLS";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), *role, *shape, elementType,
                    unsigned(tile[0]), unsigned(tile[1]));
}

void FragType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyFragRole(getRole()) << ", "
          << ptx::stringifyMMAShape(getShape()) << ", " << getElementType();
  if (isTile())
    printer << ", " << getTileRows() << "x" << getTileCols();
  printer << ">";
}

unsigned FragType::getElementsPerLane() const {
  const ptx::MmaVariant *v = lookupMmaFor(*this);
  if (!v)
    return 0;
  ptx::MmaShapeInfo s = ptx::getMmaShapeInfo(getShape());
  switch (getRole()) {
  case FragRole::a:
    return s.m * s.k / 32;
  case FragRole::b:
    return s.k * s.n / 32;
  case FragRole::acc:
    return s.m * s.n / 32;
  }
  return 0;
}
