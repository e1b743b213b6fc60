//===- GroupAsyncCopies.cpp - tokens to cp.async group counts -------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace kaio {
#define GEN_PASS_DEF_GROUPASYNCCOPIES
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// Copies (one commit group each) in [from, to) of one block; nullopt when a
/// nested region issues copies, which cannot be counted statically.
std::optional<int64_t> copiesBetween(Block::iterator from,
                                     Block::iterator to) {
  int64_t count = 0;
  for (Block::iterator it = from; it != to; ++it) {
    if (isa<AsyncCopyOp>(*it))
      ++count;
    else if (it->getNumRegions() &&
             it->walk([](AsyncCopyOp) { return WalkResult::interrupt(); })
                 .wasInterrupted())
      return std::nullopt;
  }
  return count;
}

/// Copies issued after `token`'s copy and before `point` (an op of the
/// block `token` is visible in), or nullopt when they cannot be counted. A
/// loop-carried token (an scf.for iter_arg) was issued in the previous
/// iteration (the copy yielded for it) or, on the first, before the loop
/// (its init): the smaller count of the two holds for every iteration.
std::optional<int64_t> groupsAfter(Value token, Operation *point,
                                   unsigned depth = 0) {
  if (depth > 8)
    return std::nullopt;
  Block *block = point->getBlock();
  if (Operation *def = token.getDefiningOp()) {
    if (def->getBlock() != block || !def->isBeforeInBlock(point))
      return std::nullopt;
    std::optional<int64_t> after =
        copiesBetween(std::next(def->getIterator()), point->getIterator());
    // A loop's token: the copy its last iteration yields, or its init when
    // it runs none; the copies issued after that one in the loop count too
    // (uncountable: the copies after the loop alone, fewer, still safe).
    auto loop = dyn_cast<scf::ForOp>(def);
    if (!after || !loop)
      return after;
    unsigned i = cast<OpResult>(token).getResultNumber();
    Operation *yield = loop.getBody()->getTerminator();
    std::optional<int64_t> last =
        groupsAfter(yield->getOperand(i), yield, depth + 1);
    std::optional<int64_t> none =
        groupsAfter(loop.getInitArgs()[i], loop, depth + 1);
    if (!last || !none)
      return after;
    return *after + std::min(*last, *none);
  }
  auto arg = cast<BlockArgument>(token);
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (arg.getOwner() != block || !loop || arg.getArgNumber() == 0)
    return std::nullopt;
  std::optional<int64_t> inBody =
      copiesBetween(block->begin(), point->getIterator());
  if (!inBody)
    return std::nullopt;
  unsigned i = arg.getArgNumber() - 1;
  Operation *yield = block->getTerminator();
  std::optional<int64_t> steady =
      groupsAfter(yield->getOperand(i), yield, depth + 1);
  std::optional<int64_t> first =
      groupsAfter(loop.getInitArgs()[i], loop, depth + 1);
  if (!steady || !first)
    return std::nullopt;
  return std::min(*steady, *first) + *inBody;
}

/// cp.async.wait_group takes a small immediate; deeper pipelines wait a
/// little early, which is still correct.
constexpr int64_t kMaxPendingGroups = 7;

struct GroupAsyncCopiesPass
    : kaio::impl::GroupAsyncCopiesBase<GroupAsyncCopiesPass> {
  void runOnOperation() override {
    getOperation().walk([](AsyncWaitOp wait) {
      // The newest of the awaited copies bounds how many groups may stay
      // in flight.
      std::optional<int64_t> safe = wait.getTokens().empty() ? 0 : INT64_MAX;
      for (Value token : wait.getTokens()) {
        std::optional<int64_t> n = groupsAfter(token, wait);
        safe = n && safe ? std::optional<int64_t>(std::min(*safe, *n))
                         : std::nullopt;
      }
      int64_t pending = std::min(safe.value_or(0), kMaxPendingGroups);
      if (std::optional<uint32_t> given = wait.getPending()) {
        // A hand-written count is kept when it is provably safe (it waits
        // for at least the awaited copies).
        if (safe && int64_t(*given) <= *safe) {
          pending = *given;
        } else if (safe) {
          wait.emitWarning()
              << "pending = " << *given
              << " would leave an awaited copy in flight (at most " << *safe
              << " newer copy groups are issued after it); waiting with "
              << pending << " instead";
        } else {
          wait.emitWarning()
              << "cannot prove pending = " << *given
              << " safe (the copies issued after the awaited one are not "
                 "countable statically); waiting for all copies";
        }
      } else if (!safe) {
        wait.emitRemark() << "the copies issued after the awaited one are not "
                             "countable statically; waiting for all copies "
                             "(cp.async.wait_group 0)";
      }
      wait.setPendingAttr(
          IntegerAttr::get(IntegerType::get(wait.getContext(), 32), pending));
    });
  }
};

} // namespace
