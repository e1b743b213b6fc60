//===- WarpgroupTilePatterns.h - sm_90a tile op lowering --------*- C++ -*-===//
//
// kaio-lower-tiles' patterns for the sm_90a tile ops (mbarriers, warpgroup
// MMA, setmaxnreg), kept apart from the mma.sync ones in LowerTiles.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_DIALECT_KAIO_TRANSFORMS_WARPGROUPTILEPATTERNS_H
#define KAIO_LIB_DIALECT_KAIO_TRANSFORMS_WARPGROUPTILEPATTERNS_H

#include "mlir/Transforms/DialectConversion.h"

namespace kaio {
/// Adds the lowering of kaio.mbarrier_{init,arrive,wait},
/// kaio.warpgroup_{mma,wait}, kaio.setmaxnreg, kaio.fence_proxy_async and
/// kaio.tma_store_wait to ptx ops (shared
/// addresses stay kaio.shared_address for convert-kaio-to-ptx) and marks
/// those ops illegal. `converter` turns fragments into their registers.
void populateWarpgroupTilePatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   mlir::ConversionTarget &target);
} // namespace kaio

#endif // KAIO_LIB_DIALECT_KAIO_TRANSFORMS_WARPGROUPTILEPATTERNS_H
