//===- Runtime.h - KAIO CUDA runtime, everything ----------------*- C++ -*-===//

#ifndef KAIO_RUNTIME_RUNTIME_H
#define KAIO_RUNTIME_RUNTIME_H

#include "Kaio/Runtime/Cache.h"
#include "Kaio/Runtime/Device.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Memory.h"
#include "Kaio/Runtime/Module.h"
#include "Kaio/Runtime/Signature.h"
#include "Kaio/Runtime/Stream.h"
#include "Kaio/Runtime/TensorMap.h"
#include "Kaio/Runtime/Types.h"

#endif // KAIO_RUNTIME_RUNTIME_H
