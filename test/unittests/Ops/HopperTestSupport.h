//===- HopperTestSupport.h - the sm_90a kernels in the interpreter -*- C++ -*-===//
//
// The library's sm_90a module parsed once per test suite, and tensor maps
// over row-major 16-bit tensors in interpreter memory.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_TEST_UNITTESTS_OPS_HOPPERTESTSUPPORT_H
#define KAIO_TEST_UNITTESTS_OPS_HOPPERTESTSUPPORT_H

#include "OpsKernels.h"

#include "Kaio/Dialect/PTX/IR/PTXDialect.h"
#include "Kaio/Interpreter/FloatSemantics.h"
#include "Kaio/Interpreter/Interpreter.h"
#include "Kaio/Pipeline/Pipeline.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

#include <array>
#include <ostream>
#include <random>

namespace kaio::test {

/// Parses ops::kernels::parseHopperKernels() once for the suite.
template <class Param>
class HopperKernelsTest : public ::testing::TestWithParam<Param> {
protected:
  static void SetUpTestSuite() {
    context = new mlir::MLIRContext();
    module = new mlir::OwningOpRef<mlir::ModuleOp>(
        ops::kernels::parseHopperKernels(*context));
    // The formulas (the GEMM epilogue's activations) to ptx ops, as
    // kaio-embed lowers them for the library.
    mlir::PassManager pm(context);
    buildPTXFormulaPipeline(pm, KaioToPTXOptions());
    if (*module && failed(pm.run(**module)))
      *module = nullptr;
  }
  static void TearDownTestSuite() {
    delete module;
    delete context;
  }
  static inline mlir::MLIRContext *context = nullptr;
  static inline mlir::OwningOpRef<mlir::ModuleOp> *module = nullptr;
};

/// `count` values uniform in [-1, 1) rounded to f16 or bf16: their bits
/// (to upload) and their exact values (for the f64 reference).
inline std::vector<uint16_t> sample16(std::mt19937 &rng, size_t count,
                                      bool bf16, std::vector<double> &values) {
  const interp::FloatFormat fmt = bf16 ? interp::kBF16 : interp::kF16;
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<uint16_t> bits(count);
  values.resize(count);
  for (size_t i = 0; i < count; ++i) {
    bits[i] = uint16_t(
        interp::fromDouble(dist(rng), fmt, interp::RoundMode::NearestEven));
    values[i] = interp::toDouble(bits[i], fmt);
  }
  return bits;
}

/// A 128-byte-swizzled tensor map over a tensor of `elem` with `dims` and
/// element strides `strides` (innermost first) and box `box`.
inline uint64_t tensorMap(interp::Interpreter &in, uint64_t address,
                          rt::ScalarType elem, llvm::ArrayRef<uint64_t> dims,
                          llvm::ArrayRef<uint64_t> strides,
                          llvm::ArrayRef<uint32_t> box) {
  rt::TensorMapDesc d;
  d.elem = elem;
  d.rank = uint32_t(dims.size());
  d.address = address;
  const uint64_t size = rt::getScalarTypeSize(elem);
  for (size_t i = 0; i < dims.size(); ++i) {
    d.dims[i] = dims[i];
    d.strides[i] = strides[i] * size;
    d.box[i] = box[i];
  }
  d.swizzle = rt::TensorMapSwizzle::B128;
  return in.allocTensorMap(d);
}

/// A 128-byte-swizzled tensor map over a 16-bit tensor with `dims` and
/// element strides `strides` (innermost first) and box `box`.
inline uint64_t tensorMap16(interp::Interpreter &in, uint64_t address,
                            bool bf16, llvm::ArrayRef<uint64_t> dims,
                            llvm::ArrayRef<uint64_t> strides,
                            llvm::ArrayRef<uint32_t> box) {
  return tensorMap(in, address, bf16 ? rt::ScalarType::BF16 : rt::ScalarType::F16,
                   dims, strides, box);
}

/// An attention test problem: dtype, head dim, query and kv heads, the
/// sequences' lengths (one entry per sequence of the batch; packed
/// (cu_seqlens) when `packed`, else every sequence has the first entries'
/// lengths), the window and the layout.
struct AttentionShape {
  bool bf16 = false;
  unsigned dim = 64, heads = 1, kvHeads = 1;
  std::vector<unsigned> seqQ, seqK;
  int windowLeft = -1, windowRight = -1;
  bool bottomRight = false, bhsd = false, packed = false;
};
inline void printShape(const AttentionShape &c, std::ostream *os) {
  *os << (c.bf16 ? "bf16" : "f16") << " d" << c.dim << " h" << c.heads << "/"
      << c.kvHeads << " b" << c.seqQ.size() << " sq" << c.seqQ[0] << " sk"
      << c.seqK[0] << " window [" << c.windowLeft << ", " << c.windowRight
      << "]" << (c.bottomRight ? " br" : "") << (c.bhsd ? " bhsd" : " bshd")
      << (c.packed ? " packed" : "");
}
inline void PrintTo(const AttentionShape &c, std::ostream *os) {
  printShape(c, os);
}
/// `batch` sequences of `sq` queries and `sk` keys.
template <class C>
C denseShape(bool bf16, unsigned dim, unsigned batch, unsigned heads,
             unsigned kvHeads, unsigned sq, unsigned sk) {
  C c;
  c.bf16 = bf16;
  c.dim = dim;
  c.heads = heads;
  c.kvHeads = kvHeads;
  c.seqQ.assign(batch, sq);
  c.seqK.assign(batch, sk);
  return c;
}
/// Packed sequences of these lengths, two query heads over one kv head.
template <class C>
C packedShape(bool bf16, unsigned dim, std::vector<unsigned> sq,
              std::vector<unsigned> sk) {
  C c = denseShape<C>(bf16, dim, 1, 2, 1, 1, 1);
  c.seqQ = std::move(sq);
  c.seqK = std::move(sk);
  c.packed = true;
  return c;
}
template <class C> C causal(C c, bool bottomRight) {
  c.windowRight = 0;
  c.bottomRight = bottomRight;
  return c;
}
template <class C> C window(C c, int left, int right) {
  c.windowLeft = left;
  c.windowRight = right;
  return c;
}
template <class C> C bhsd(C c) {
  c.bhsd = true;
  return c;
}

/// Where an attention problem's tensors live: [batch][seq][heads][dim]
/// (bshd) or [batch][heads][seq][dim] (bhsd) with `seqQ[0]` / `seqK[0]`
/// rows a sequence, or packed: the sequences' rows one after another in a
/// batch-1 tensor (`seqQ` / `seqK` one entry per sequence).
struct AttentionLayout {
  unsigned batch, storeBatch, rowsQ, rowsK;
  /// The first row of each sequence (0 unless packed).
  std::vector<unsigned> startQ, startK;
  /// Element strides, innermost first: dim, head, seq, batch.
  std::array<uint64_t, 4> strideQ, strideKV;

  AttentionLayout(unsigned dim, unsigned heads, unsigned kvHeads,
                  const std::vector<unsigned> &seqQ,
                  const std::vector<unsigned> &seqK, bool packed, bool bhsd)
      : batch(unsigned(seqQ.size())), storeBatch(packed ? 1 : batch),
        rowsQ(seqQ[0]), rowsK(seqK[0]), startQ(batch, 0), startK(batch, 0) {
    if (packed) {
      for (unsigned b = 1; b < batch; ++b) {
        startQ[b] = startQ[b - 1] + seqQ[b - 1];
        startK[b] = startK[b - 1] + seqK[b - 1];
      }
      rowsQ = startQ.back() + seqQ.back();
      rowsK = startK.back() + seqK.back();
    }
    auto stridesOf = [&](unsigned h, unsigned seq) {
      return bhsd ? std::array<uint64_t, 4>{1, uint64_t(seq) * dim, dim,
                                            uint64_t(h) * seq * dim}
                  : std::array<uint64_t, 4>{1, dim, uint64_t(h) * dim,
                                            uint64_t(seq) * h * dim};
    };
    strideQ = stridesOf(heads, rowsQ);
    strideKV = stridesOf(kvHeads, rowsK);
  }
  /// The element (b, t, h, x) of a tensor with strides `s`.
  static size_t at(const std::array<uint64_t, 4> &s, unsigned b, unsigned t,
                   unsigned h, unsigned x) {
    return b * s[3] + t * s[2] + h * s[1] + x * s[0];
  }
};

} // namespace kaio::test

#endif // KAIO_TEST_UNITTESTS_OPS_HOPPERTESTSUPPORT_H
