//===- TensorMapTest.cpp - TMA tensor maps: validation, encoding, launch --===//
//
// makeTensorMap rejects what cuTensorMapEncodeTiled would (an error naming
// the field), encodes through the driver (the fake one writes KAIO's own
// encoding, so the test reads back what it was given), and a `tmap`
// parameter receives the map's 128 bytes by value.
//
//===----------------------------------------------------------------------===//

#include "DriverBackends.h"

#include "Kaio/Runtime/Runtime.h"
#include "Kaio/Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>

using namespace kaio::rt;
using namespace kaio::rt::test;

namespace {

/// A valid map: a 100 x 72 row-major f16 matrix, 64 x 16 boxes, 128-byte
/// swizzle.
TensorMapDesc matrixMap() {
  TensorMapDesc d;
  d.elem = ScalarType::F16;
  d.rank = 2;
  d.address = 0x10000;
  d.dims[0] = 72;
  d.dims[1] = 100;
  d.strides[0] = 2;
  d.strides[1] = 144;
  d.box[0] = 64;
  d.box[1] = 16;
  d.swizzle = TensorMapSwizzle::B128;
  return d;
}

std::string messageOf(Error e) { return e ? e.message() : std::string(); }

/// matrixMap() over device memory of `dev` (`buffer` keeps it alive): a
/// tensor map's address must be memory the GPU can use.
Expected<TensorMap> deviceMatrixMap(const Device &dev,
                                    std::optional<DeviceBuffer<Half>> &buffer) {
  Expected<DeviceBuffer<Half>> memory = DeviceBuffer<Half>::allocate(dev, 7200);
  if (!memory)
    return memory.takeError();
  buffer.emplace(std::move(*memory));
  TensorMapDesc d = matrixMap();
  d.address = buffer->ptr();
  return makeTensorMap(dev, d);
}

TEST(TensorMapValidationTest, AcceptsAValidMap) {
  EXPECT_FALSE(validateTensorMap(matrixMap()));
}

TEST(TensorMapValidationTest, NamesTheOffendingField) {
  struct Case {
    const char *expect;
    void (*mutate)(TensorMapDesc &);
  } cases[] = {
      {"tensor map rank: 0 is outside 1-5", [](TensorMapDesc &d) { d.rank = 0; }},
      {"tensor map rank: 6 is outside 1-5", [](TensorMapDesc &d) { d.rank = 6; }},
      {"tensor map elem: b8 is not a type the TMA copies",
       [](TensorMapDesc &d) { d.elem = ScalarType::B8; }},
      {"tensor map address: null", [](TensorMapDesc &d) { d.address = 0; }},
      {"tensor map address: not 16-byte aligned",
       [](TensorMapDesc &d) { d.address = 0x10008; }},
      {"tensor map strides[0]: 4 is not the element size 2",
       [](TensorMapDesc &d) { d.strides[0] = 4; }},
      {"tensor map dims[1]: 0 is outside [1, 2^32]",
       [](TensorMapDesc &d) { d.dims[1] = 0; }},
      {"tensor map strides[1]: 136 bytes is not a multiple of 16",
       [](TensorMapDesc &d) { d.strides[1] = 136; }},
      {"tensor map box[1]: 257 is outside 1-256",
       [](TensorMapDesc &d) { d.box[1] = 257; }},
      {"tensor map box[0]: 4 elements are 8 bytes, not a multiple of 16",
       [](TensorMapDesc &d) {
         d.box[0] = 4;
         d.swizzle = TensorMapSwizzle::None;
       }},
      {"tensor map box[0]: 256 bytes exceed the 128-byte swizzle span",
       [](TensorMapDesc &d) { d.box[0] = 128; }},
      {"tensor map elementStrides[0]: 9 is outside 1-8",
       [](TensorMapDesc &d) { d.elementStrides[0] = 9; }},
      {"tensor map oobNaN: NaN fill needs a float element type",
       [](TensorMapDesc &d) {
         d.elem = ScalarType::U16;
         d.oobNaN = true;
       }},
  };
  for (const Case &c : cases) {
    TensorMapDesc d = matrixMap();
    c.mutate(d);
    Error e = validateTensorMap(d);
    ASSERT_TRUE(e) << c.expect;
    EXPECT_EQ(e.code(), ErrorCode::InvalidValue);
    EXPECT_NE(e.message().find(c.expect), std::string::npos) << e.message();
  }
}

class TensorMapFakeDriverTest : public FakeDriverFixture {};

TEST_F(TensorMapFakeDriverTest, EncodesThroughTheDriver) {
  Device dev = *Device::open(1);
  int before = counters->tensorMapsEncoded;
  TensorMapDesc d = matrixMap();
  d.oobNaN = true;
  // The address must be memory of the device (a made-up one is refused
  // before the driver encodes anything, as is device 0's memory).
  Error unknown = makeTensorMap(dev, d).takeError();
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown.code(), ErrorCode::InvalidValue);
  EXPECT_NE(unknown.message().find("tensor map address: 0x10000 is not memory "
                                   "the GPU can use"),
            std::string::npos)
      << unknown.message();
  Expected<Device> dev0 = Device::open(0);
  ASSERT_TRUE(dev0);
  Expected<DeviceBuffer<Half>> other = DeviceBuffer<Half>::allocate(*dev0, 7200);
  ASSERT_TRUE(other);
  d.address = other->ptr();
  EXPECT_NE(messageOf(makeTensorMap(dev, d).takeError())
                .find("is memory of device 0, not of device 1"),
            std::string::npos);
  EXPECT_EQ(counters->tensorMapsEncoded, before);
  Expected<DeviceBuffer<Half>> matrix = DeviceBuffer<Half>::allocate(dev, 7200);
  ASSERT_TRUE(matrix);
  d.address = matrix->ptr();
  // On a thread with no current context (the driver answers
  // CUDA_ERROR_INVALID_CONTEXT there): makeTensorMap enters the device's.
  std::optional<Expected<TensorMap>> encoded;
  std::thread([&] { encoded.emplace(makeTensorMap(dev, d)); }).join();
  Expected<TensorMap> map = std::move(*encoded);
  ASSERT_TRUE(map) << map.takeError().message();
  EXPECT_EQ(counters->tensorMapsEncoded, before + 1);
  std::optional<TensorMapDesc> back = decodeKaioTensorMap(map->data());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->elem, ScalarType::F16);
  EXPECT_EQ(back->rank, 2u);
  EXPECT_EQ(back->address, d.address);
  EXPECT_EQ(back->dims[0], 72u);
  EXPECT_EQ(back->dims[1], 100u);
  EXPECT_EQ(back->strides[1], 144u);
  EXPECT_EQ(back->box[0], 64u);
  EXPECT_EQ(back->box[1], 16u);
  EXPECT_EQ(back->swizzle, TensorMapSwizzle::B128);
  EXPECT_TRUE(back->oobNaN);
  EXPECT_EQ(map->desc().dims[1], 100u);
  // Invalid descriptions never reach the driver.
  d.rank = 0;
  EXPECT_FALSE(makeTensorMap(dev, d));
  EXPECT_EQ(counters->tensorMapsEncoded, before + 1);
}

// A kernel taking a tensor map by value (the printer's form).
const char *kProbePtx = R"(// kaio.kernel tmap_probe(tmap,u32)
.version 8.0
.target sm_90a
.address_size 64
.visible .entry tmap_probe(
	.param .align 64 .b8 map[128],
	.param .u32 n
)
{
	ret;
}
)";

TEST_F(TensorMapFakeDriverTest, TmapParametersReceiveTheMapByValue) {
  Device dev = *Device::open(0);
  Module mod = *Module::loadPtx(dev, kProbePtx);
  Kernel kernel = *mod.getKernel("tmap_probe");
  std::optional<DeviceBuffer<Half>> memory;
  Expected<TensorMap> made = deviceMatrixMap(dev, memory);
  ASSERT_TRUE(made) << made.error().message();
  TensorMap map = std::move(*made);
  LaunchConfig config;
  ASSERT_FALSE(kernel.launch(config, map, std::uint32_t(7)));
  EXPECT_EQ(std::memcmp(counters->lastTensorMapParam, map.data(),
                        kTensorMapBytes),
            0);
  // The signature holds the map's place: a scalar there (or a map for the
  // u32) is an argument mismatch, nothing is launched.
  int launches = counters->launches;
  Error e = kernel.launch(config, std::uint64_t(0), std::uint32_t(7));
  EXPECT_NE(messageOf(std::move(e)).find(
                "argument 1 of tmap_probe: expected tmap, got u64 (build it "
                "with rt::makeTensorMap)"),
            std::string::npos);
  e = kernel.launch(config, map, map);
  EXPECT_NE(messageOf(std::move(e)).find(
                "argument 2 of tmap_probe: expected u32, got tmap"),
            std::string::npos);
  EXPECT_EQ(counters->launches, launches);
}

TEST_F(TensorMapFakeDriverTest, ClusterLaunchesGoThroughCuLaunchKernelEx) {
  // Device 1 of the fake is a 9.0 GPU; device 0 (8.0) has no clusters.
  Device h100 = *Device::open(1);
  Module mod = *Module::loadPtx(h100, kProbePtx);
  Kernel kernel = *mod.getKernel("tmap_probe");
  std::optional<DeviceBuffer<Half>> memory;
  Expected<TensorMap> made = deviceMatrixMap(h100, memory);
  ASSERT_TRUE(made) << made.error().message();
  TensorMap map = std::move(*made);
  LaunchConfig config;
  config.grid = Dim3(8, 2);
  config.cluster = Dim3(2, 2);
  ASSERT_FALSE(kernel.launch(config, map, std::uint32_t(1)));
  EXPECT_EQ(counters->lastCluster[0], 2u);
  EXPECT_EQ(counters->lastCluster[1], 2u);
  EXPECT_EQ(counters->lastGrid[0], 8u);
  // An ordinary launch reports clusters of one.
  ASSERT_FALSE(kernel.launch(LaunchConfig{Dim3(8, 2), Dim3(1)}, map,
                             std::uint32_t(1)));
  EXPECT_EQ(counters->lastCluster[0], 1u);
  int launches = counters->launches;
  config.cluster = Dim3(3);
  EXPECT_NE(messageOf(kernel.launch(config, map, std::uint32_t(1)))
                .find("cluster dimension x 3 does not divide grid dimension "
                      "x 8"),
            std::string::npos);
  config.grid = Dim3(16);
  config.cluster = Dim3(16);
  EXPECT_NE(messageOf(kernel.launch(config, map, std::uint32_t(1)))
                .find("cluster of 16 blocks exceeds 8 (the portable size; "
                      "set nonPortableCluster for up to 16)"),
            std::string::npos);
  EXPECT_EQ(counters->launches, launches);
  config.nonPortableCluster = true;
  EXPECT_FALSE(kernel.launch(config, map, std::uint32_t(1)));
  EXPECT_EQ(counters->lastCluster[0], 16u);
  Device a100 = *Device::open(0);
  Module old = *Module::loadPtx(a100, kProbePtx);
  Kernel oldKernel = *old.getKernel("tmap_probe");
  config.cluster = Dim3(2);
  config.nonPortableCluster = false;
  EXPECT_NE(messageOf(oldKernel.launch(config, map, std::uint32_t(1)))
                .find("thread block clusters need sm_90 or newer"),
            std::string::npos);
}

TEST_F(TensorMapFakeDriverTest, CompiledClustersAreChecked) {
  // A kernel compiled for clusters of 2 x 1 (`.reqnctapercluster`, recorded
  // as `cluster=` in its signature): a launch naming no cluster is checked
  // as if it named that one and launched plainly (the driver applies the
  // compiled cluster); a grid that is not whole clusters, or another
  // cluster, is refused before anything is launched.
  static const char *kClusteredPtx = R"(// kaio.kernel paired(u32) cluster=2x1x1
.version 8.0
.target sm_90a
.address_size 64
.visible .entry paired(
	.param .u32 n
)
.reqnctapercluster 2, 1, 1
{
	ret;
}
)";
  Device h100 = *Device::open(1);
  Module mod = *Module::loadPtx(h100, kClusteredPtx);
  Kernel kernel = *mod.getKernel("paired");
  ASSERT_TRUE(kernel.signature());
  EXPECT_EQ(kernel.signature()->str(), "paired(u32) cluster=2x1x1");
  LaunchConfig config;
  config.grid = Dim3(6);
  int launches = counters->launches;
  ASSERT_FALSE(kernel.launch(config, std::uint32_t(1)));
  EXPECT_EQ(counters->launches, launches + 1);
  EXPECT_EQ(counters->lastCluster[0], 1u) << "not through cuLaunchKernelEx";
  // Naming the compiled cluster is the same launch, with the attribute.
  config.cluster = Dim3(2);
  ASSERT_FALSE(kernel.launch(config, std::uint32_t(1)));
  EXPECT_EQ(counters->lastCluster[0], 2u);
  launches = counters->launches;
  config.grid = Dim3(7);
  config.cluster = Dim3();
  EXPECT_NE(messageOf(kernel.launch(config, std::uint32_t(1)))
                .find("cluster dimension x 2 does not divide grid dimension "
                      "x 7"),
            std::string::npos);
  config.grid = Dim3(8);
  config.cluster = Dim3(4);
  EXPECT_NE(messageOf(kernel.launch(config, std::uint32_t(1)))
                .find("launching kernel 'paired': cluster 4 differs from the "
                      "kernel's compiled cluster 2 (.reqnctapercluster)"),
            std::string::npos);
  Expected<unsigned> clusters = kernel.maxActiveClusters(config);
  ASSERT_FALSE(clusters);
  // A zero dimension names a cluster too (not "none").
  config.cluster = Dim3(2, 0);
  EXPECT_NE(messageOf(kernel.launch(config, std::uint32_t(1)))
                .find("differs from the kernel's compiled cluster 2"),
            std::string::npos);
  // Kernel::validate says what the launch would.
  config.grid = Dim3(7);
  config.cluster = Dim3();
  EXPECT_NE(messageOf(kernel.validate(config))
                .find("cluster dimension x 2 does not divide grid dimension "
                      "x 7"),
            std::string::npos);
  EXPECT_EQ(counters->launches, launches);
  // The occupancy query takes the compiled cluster too.
  config.cluster = Dim3();
  clusters = kernel.maxActiveClusters(config);
  ASSERT_TRUE(clusters) << clusters.takeError().message();
  EXPECT_EQ(*clusters, 66u);
  // An 8.0 GPU has no clusters: refused, named.
  config.grid = Dim3(8);
  Device a100 = *Device::open(0);
  Module old = *Module::loadPtx(a100, kClusteredPtx);
  EXPECT_NE(messageOf(old.getKernel("paired")->launch(config,
                                                        std::uint32_t(1)))
                .find("thread block clusters need sm_90 or newer"),
            std::string::npos);
}

TEST_F(TensorMapFakeDriverTest, MaxActiveClustersAsksTheDriver) {
  // The fake 132-SM GPU runs one cluster per `size` SMs; the query opts in
  // to the shared memory asked for, as a launch does, so a kernel that
  // needs more than 48 KiB still fits.
  Device h100 = *Device::open(1);
  Module mod = *Module::loadPtx(h100, kProbePtx);
  Kernel kernel = *mod.getKernel("tmap_probe");
  LaunchConfig config;
  config.block = Dim3(384);
  config.cluster = Dim3(2);
  Expected<unsigned> clusters = kernel.maxActiveClusters(config);
  ASSERT_TRUE(clusters) << clusters.takeError().message();
  EXPECT_EQ(*clusters, 66u);
  config.cluster = Dim3(2, 2);
  config.dynamicSharedBytes = 200 * 1024;
  clusters = kernel.maxActiveClusters(config);
  ASSERT_TRUE(clusters) << clusters.takeError().message();
  EXPECT_EQ(*clusters, 33u);
  EXPECT_EQ(kernel.attributes().maxDynamicSharedBytes, 200 * 1024);
  // More than the device has: the opt-in fails, named.
  config.dynamicSharedBytes = 300 * 1024;
  clusters = kernel.maxActiveClusters(config);
  ASSERT_FALSE(clusters);
  EXPECT_NE(clusters.error().message().find(
                "querying the active clusters of kernel 'tmap_probe'"),
            std::string::npos)
      << clusters.error().message();
}

TEST(TensorMapSignatureTest, ParsesAndPrintsTmap) {
  Expected<KernelSignature> sig =
      parseKernelSignature("k(tmap,ptr<const f16>,u32) smem=1024");
  ASSERT_TRUE(sig) << sig.takeError().message();
  ASSERT_EQ(sig->params.size(), 3u);
  EXPECT_TRUE(sig->params[0].isTensorMap);
  EXPECT_EQ(sig->params[0], ParamType::tensorMap());
  EXPECT_NE(sig->params[0], ParamType::scalar(ScalarType::B8));
  EXPECT_EQ(sig->str(), "k(tmap,ptr<const f16>,u32) smem=1024");
}

} // namespace
