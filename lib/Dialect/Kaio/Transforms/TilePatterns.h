//===- TilePatterns.h - kaio-lower-tiles' pattern groups ----------*- C++ -*-===//
//
// The groups of patterns kaio-lower-tiles (LowerTiles.cpp) applies besides
// its mma.sync fragment ones: the copies' and the sm_90a tile ops'.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEPATTERNS_H
#define KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEPATTERNS_H

#include "mlir/Transforms/DialectConversion.h"

namespace kaio {
/// Adds the lowering of kaio.async_copy (to cp.async and a commit group;
/// its token becomes an i32) and kaio.async_wait (cp.async.wait_group) and
/// marks both illegal (LowerAsyncCopies.cpp).
void populateAsyncCopyPatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns,
                               mlir::ConversionTarget &target);

/// Adds the lowering of kaio.mbarrier_{init,arrive,wait},
/// kaio.warpgroup_{mma,wait}, kaio.setmaxnreg, kaio.fence_proxy_async and
/// kaio.tma_store_wait to ptx ops (shared addresses stay
/// kaio.shared_address for convert-kaio-to-ptx) and marks those ops illegal
/// (WarpgroupTilePatterns.cpp). `converter` turns fragments into their
/// registers.
void populateWarpgroupTilePatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   mlir::ConversionTarget &target);
} // namespace kaio

#endif // KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEPATTERNS_H
