//===- GroupAsyncCopies.cpp - tokens to cp.async group counts -------------===//

#include "Kaio/Dialect/Kaio/Transforms/Passes.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kaio {
#define GEN_PASS_DEF_GROUPASYNCCOPIES
#include "Kaio/Dialect/Kaio/Transforms/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio;

namespace {

/// Copies (each one commit group) issued after `token`'s copy and before
/// `wait`, or nullopt when that cannot be counted statically.
std::optional<int64_t> newerGroups(Value token, AsyncWaitOp wait) {
  Block *block = wait->getBlock();
  Operation *start = token.getDefiningOp();
  Block::iterator it;
  if (start) {
    if (start->getBlock() != block)
      return std::nullopt;
    it = std::next(start->getIterator());
  } else {
    // A block argument (a loop-carried token): its copy was issued before
    // this block began.
    if (cast<BlockArgument>(token).getOwner() != block)
      return std::nullopt;
    it = block->begin();
  }
  int64_t count = 0;
  for (; it != wait->getIterator(); ++it) {
    if (isa<AsyncCopyOp>(*it))
      ++count;
    else if (it->getNumRegions() &&
             it->walk([](AsyncCopyOp) { return WalkResult::interrupt(); })
                 .wasInterrupted())
      return std::nullopt;
  }
  return count;
}

struct GroupAsyncCopiesPass
    : kaio::impl::GroupAsyncCopiesBase<GroupAsyncCopiesPass> {
  void runOnOperation() override {
    getOperation().walk([](AsyncWaitOp wait) {
      int64_t pending = std::numeric_limits<int64_t>::max();
      for (Value token : wait.getTokens()) {
        std::optional<int64_t> n = newerGroups(token, wait);
        pending = std::min(pending, n.value_or(0));
      }
      if (wait.getTokens().empty())
        pending = 0;
      // wait_group's operand is a small immediate; deeper pipelines wait a
      // little early, which is still correct.
      pending = std::min<int64_t>(pending, 7);
      wait.setPendingAttr(
          IntegerAttr::get(IntegerType::get(wait.getContext(), 32), pending));
    });
  }
};

} // namespace
