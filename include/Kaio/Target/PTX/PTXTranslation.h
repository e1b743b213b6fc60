//===- PTXTranslation.h - the --mlir-to-ptx translation ---------*- C++ -*-===//

#ifndef KAIO_TARGET_PTX_PTXTRANSLATION_H
#define KAIO_TARGET_PTX_PTXTRANSLATION_H

namespace kaio {
/// Registers `--mlir-to-ptx` (with --ptx-chip, --ptx-version,
/// --ptx-line-info) with mlir-translate's registry.
void registerToPTXTranslation();
} // namespace kaio

#endif // KAIO_TARGET_PTX_PTXTRANSLATION_H
