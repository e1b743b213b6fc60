//===- TilePatterns.h - kaio-lower-tiles' pattern groups ----------*- C++ -*-===//
//
// The groups of patterns kaio-lower-tiles (LowerTiles.cpp) applies besides
// its fragment ones.
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
} // namespace kaio

#endif // KAIO_LIB_DIALECT_KAIO_TRANSFORMS_TILEPATTERNS_H
