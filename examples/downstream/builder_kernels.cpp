// A build-time generator: writes a kernel written with KAIO's C++ builder as
// a .mlir module to argv[1], which kaio_add_kernels embeds with the others.
// Only this generator links the compiler libraries; the application does not.
#include "Kaio/Builder/Builder.h"

using namespace kaio::builder;

int main(int argc, char **argv) {
  return generatorMain(argc, argv, [](ModuleBuilder &mb) {
    // y[i] = a * x[i] + y[i]
    mb.kernel("builder_saxpy", {256}, [](KernelBuilder &k) {
      auto a = k.param<float>("a");
      auto x = k.param<Ptr<const float>>("x");
      auto y = k.param<Ptr<float>>("y");
      auto n = k.param<uint32_t>("n");
      U32 i = k.blockId() * k.blockDim() + k.threadId();
      k.if_(i < n, [&] {
        F32 xi = x[i];
        F32 yi = y[i];
        y[i] = fma(a, xi, yi);
      });
    });
  });
}
