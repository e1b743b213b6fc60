//===- IndexBits.cpp - what index arithmetic can set -----------------------===//

#include "IndexBits.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "llvm/ADT/DenseMap.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kaio;

namespace {

constexpr uint64_t kAll = 0xffffffffull;
/// How far the walk follows operands (index arithmetic is shallow; a
/// deeper chain counts as unknown).
constexpr unsigned kMaxDepth = 12;

/// The bits of every value in [0, max].
uint64_t bitsUpTo(uint64_t max) {
  return max >= kAll ? kAll : llvm::NextPowerOf2(max) - 1;
}

/// Bits from `low` up to the highest bit of `max`.
uint64_t bitsBetween(unsigned low, uint64_t max) {
  return bitsUpTo(max) & ~((uint64_t(1) << std::min(low, 32u)) - 1) & kAll;
}

unsigned trailingZeros(uint64_t bits) {
  return bits ? unsigned(llvm::countr_zero(bits)) : 32;
}

std::optional<uint64_t> getConstant(Value v) {
  APInt c;
  if (!matchPattern(v, m_ConstantInt(&c)) || c.getBitWidth() > 64)
    return std::nullopt;
  if (c.isNegative() && c.getBitWidth() > 1)
    return std::nullopt;
  return c.getZExtValue();
}

/// One query's memo. A result the depth limit cut short is not memoised:
/// the same value met again nearer the root may be known exactly.
struct BitsCache {
  llvm::DenseMap<Value, uint64_t> known;
  bool truncated = false;
};

uint64_t possibleOnesUncached(Value v, unsigned depth, BitsCache &cache);

/// possibleOnes, once per value of a query (index arithmetic is a DAG).
uint64_t possibleOnes(Value v, unsigned depth, BitsCache &cache) {
  if (auto it = cache.known.find(v); it != cache.known.end())
    return it->second;
  bool outerTruncated = cache.truncated;
  cache.truncated = false;
  uint64_t bits = possibleOnesUncached(v, depth, cache);
  if (!cache.truncated)
    cache.known[v] = bits;
  cache.truncated |= outerTruncated;
  return bits;
}

uint64_t possibleOnesUncached(Value v, unsigned depth, BitsCache &cache) {
  if (!v.getType().isSignlessInteger() ||
      v.getType().getIntOrFloatBitWidth() > 32)
    return kAll;
  if (std::optional<uint64_t> c = getConstant(v))
    return *c & kAll;
  Operation *op = v.getDefiningOp();
  if (!op)
    return kAll;
  if (depth >= kMaxDepth) {
    cache.truncated = true;
    return kAll;
  }
  auto operand = [&](unsigned i) {
    return possibleOnes(op->getOperand(i), depth + 1, cache);
  };
  auto constantOperand = [&](unsigned i) {
    return getConstant(op->getOperand(i));
  };
  if (auto id = dyn_cast<ThreadIdOp>(op))
    return bitsUpTo(
        uint64_t(getBlockBounds(op).getThreadBound(unsigned(id.getDim())) - 1));
  if (isa<LaneIdOp>(op))
    return 31;
  if (isa<WarpIdOp>(op))
    return bitsUpTo(uint64_t(getBlockBounds(op).getNumThreads() - 1) / 32);
  if (isa<arith::AndIOp>(op))
    return operand(0) & operand(1);
  if (isa<arith::OrIOp, arith::XOrIOp>(op))
    return operand(0) | operand(1);
  if (isa<arith::AddIOp>(op))
    return getPossibleOneBitsOfSum(operand(0), operand(1));
  if (isa<arith::MulIOp>(op)) {
    if (std::optional<uint64_t> c = constantOperand(1))
      return getPossibleOneBitsOfProduct(operand(0), *c);
    if (std::optional<uint64_t> c = constantOperand(0))
      return getPossibleOneBitsOfProduct(operand(1), *c);
    uint64_t a = operand(0), b = operand(1);
    return bitsBetween(trailingZeros(a) + trailingZeros(b),
                       a > kAll / std::max<uint64_t>(b, 1) ? kAll : a * b);
  }
  if (isa<arith::ShLIOp>(op))
    if (std::optional<uint64_t> c = constantOperand(1); c && *c < 32)
      return (operand(0) << *c) & kAll;
  if (isa<arith::ShRUIOp>(op))
    if (std::optional<uint64_t> c = constantOperand(1); c && *c < 32)
      return operand(0) >> *c;
  if (isa<arith::DivUIOp>(op))
    if (std::optional<uint64_t> c = constantOperand(1); c && *c) {
      if (llvm::isPowerOf2_64(*c))
        return operand(0) >> llvm::Log2_64(*c);
      return bitsUpTo(operand(0) / *c);
    }
  if (isa<arith::RemUIOp>(op)) {
    if (std::optional<uint64_t> c = constantOperand(1); c && *c) {
      // x % 2^k keeps x's low bits; any other remainder is below both.
      uint64_t x = operand(0);
      return llvm::isPowerOf2_64(*c) ? x & (*c - 1)
                                     : bitsUpTo(std::min(x, *c - 1));
    }
    // x % y for an unknown y (or one of 2^31 and more): at most x.
    return bitsUpTo(operand(0));
  }
  if (isa<arith::MinUIOp>(op))
    return bitsUpTo(std::min(operand(0), operand(1)));
  if (isa<arith::MaxUIOp>(op))
    return bitsUpTo(std::max(operand(0), operand(1)));
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return operand(0);
  if (isa<arith::TruncIOp>(op))
    return operand(0) &
           bitsUpTo((uint64_t(1) << v.getType().getIntOrFloatBitWidth()) - 1);
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return possibleOnes(select.getTrueValue(), depth + 1, cache) |
           possibleOnes(select.getFalseValue(), depth + 1, cache);
  return kAll;
}

} // namespace

uint64_t kaio::getPossibleOneBitsOfProduct(uint64_t bits, uint64_t c) {
  if (c == 0 || bits == 0)
    return 0;
  if (llvm::isPowerOf2_64(c))
    return c > kAll ? 0 : (bits << llvm::Log2_64(c)) & kAll;
  // x * c <= max(x) * c, and has x's and c's trailing zeros.
  uint64_t max = bits > kAll / c ? kAll : bits * c;
  return bitsBetween(trailingZeros(bits) + trailingZeros(c), max);
}

uint64_t kaio::getPossibleOneBitsOfSum(uint64_t x, uint64_t y) {
  if (!(x & y))
    return x | y; // no carries
  uint64_t max = std::min(kAll, x + y);
  return bitsBetween(std::min(trailingZeros(x), trailingZeros(y)), max);
}

uint64_t kaio::getPossibleOneBits(Value index) {
  BitsCache cache;
  return possibleOnes(index, 0, cache);
}

BlockBounds kaio::getBlockBounds(Operation *op) {
  BlockBounds bounds;
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(p)) {
      bounds.dims = kernel.getBlockSize();
      bounds.exact = kernel->hasAttr(KaioDialect::kExactBlockSizeAttrName);
      return bounds;
    }
    if (auto entry = dyn_cast<ptx::EntryOp>(p)) {
      if (auto req = entry.getReqntidAttr()) {
        bounds.dims = req.asArrayRef();
        bounds.exact = true;
      } else if (auto max = entry.getMaxntidAttr()) {
        bounds.dims = max.asArrayRef();
      }
      return bounds;
    }
  }
  return bounds;
}

int64_t BlockBounds::getNumThreads() const {
  if (dims.empty())
    return 1024;
  int64_t n = 1;
  for (int32_t d : dims)
    n *= d;
  return n;
}

int64_t BlockBounds::getThreadBound(unsigned dim) const {
  if (dims.empty())
    return dim < 2 ? 1024 : 64;
  // Launches have no extent past the block's rank (both runners refuse
  // them: rt::describeBlockMismatch); .maxntid bounds the thread count, not
  // each extent.
  if (dim >= dims.size())
    return 1;
  if (!exact)
    return dim < 2 ? getNumThreads() : std::min<int64_t>(getNumThreads(), 64);
  return dims[dim];
}

ConstantSplit kaio::splitConstant(Value index) {
  ConstantSplit split{index, 0};
  for (unsigned depth = 0; split.variable && depth < kMaxDepth; ++depth) {
    APInt c;
    if (matchPattern(split.variable, m_ConstantInt(&c))) {
      split.constant += c.getSExtValue();
      split.variable = Value();
      break;
    }
    Operation *op = split.variable.getDefiningOp();
    if (!op || !isa<arith::AddIOp, arith::SubIOp>(op))
      break;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    bool sub = isa<arith::SubIOp>(op);
    if (matchPattern(rhs, m_ConstantInt(&c))) {
      split.constant += sub ? -c.getSExtValue() : c.getSExtValue();
      split.variable = lhs;
    } else if (!sub && matchPattern(lhs, m_ConstantInt(&c))) {
      split.constant += c.getSExtValue();
      split.variable = rhs;
    } else {
      break;
    }
  }
  return split;
}
