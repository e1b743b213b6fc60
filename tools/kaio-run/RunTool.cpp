//===- RunTool.cpp - kaio-run's command line and driver loop --------------===//

#include "RunSupport.h"

#include "Kaio/Runtime/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>

using namespace kaio;
using namespace kaio::run;

std::string kaio::run::getUsage() {
  return R"(usage: kaio-run FILE.ptx|FILE.mlir --kernel NAME --grid X[,Y,Z]
                --block X[,Y,Z] [--cluster X[,Y,Z]] [--smem BYTES] [--arg SPEC]... [--print NAME]...
                [--out NAME=FILE] [--time [--reps N] [--warmup N]]
                [--seed S] [--device N] [--chip sm_XX] [--verbose] [--interpret
                [--profile] [--profile-json FILE] [--profile-top N]]

Runs one kernel of a PTX module (cubin/fatbin files work too) on a GPU. A
.mlir file (kaio or ptx dialect) is compiled first, for --chip or the
device's chip; builds with the compiler only.

  --arg name=type:value        a scalar, e.g. n=u32:1024, alpha=f32:0.5
  --arg name=type[count]:init  a device buffer, e.g. a=f32[1024]:rand
  --arg name=tmap:BUF:DIMS:BOX[:swizzle32|swizzle64|swizzle128][:oobnan]
                               a TMA tensor map (for `tmap` parameters) over
      the row-major tensor of shape DIMS held by the earlier buffer BUF,
      copying BOX boxes; outermost first, e.g. ma=tmap:a:100x72:16x64:swizzle128
  --buffer name=type[count]:init  a buffer that is not a kernel argument
      (e.g. what a tensor map describes); --print and --out take it
      init: rand (uniform [-1,1) for floats, small ints for ints; --seed),
            zeros, ones, iota (0,1,2,...), a number, or @file (raw binary)
      types: f32 f64 f16 bf16 s8 u8 s16 u16 s32 u32 s64 u64 (i8..i64 are
             s8..s64: signed)
  Arguments are passed in the order given and checked against the
  kernel's `// kaio.kernel` signature, on the GPU and with --interpret
  alike: types must match exactly (no implicit conversions: a u32
  parameter takes u32:..., not s32/i32), buffers point to their element
  type.
  --smem BYTES      dynamic shared memory (opts in beyond 48 KiB)
  --cluster X[,Y,Z] blocks per thread block cluster (sm_90; each divides
                    the grid's, at most 8 blocks, 16 with --interpret)
  --print NAME      print a buffer after the run (head, tail, min/max/mean/NaN)
  --out NAME=FILE   write a buffer after the run: FILE.npy (NumPy) or raw
  --time            report median and min of --reps event-timed launches
  --device N        GPU ordinal (default 0)
  --verbose         print the device, cache status and kernel attributes
  --chip sm_XX      chip to compile .mlir input for (default: the device's)
  --interpret       run a .mlir kernel on the CPU interpreter, with its
                    sanitizer (builds with the compiler only)
  --profile         with --interpret: print the profile (instruction mix,
                    shared-memory bank conflicts, global sectors/request,
                    FLOPs, bytes, hot source lines; docs/profiling.md)
  --profile-json FILE  with --interpret: write the profile as JSON
  --profile-top N   hot source lines listed (default 10)

Environment: KAIO_CUDA_DRIVER (driver path), KAIO_CACHE_DIR, KAIO_CACHE=0.
Exit status: 0 ok, 1 error, 2 unsupported in this build, 3 no GPU/driver.
)";
}

static Error usageError(const std::string &msg) {
  return Error::make(ErrorCode::InvalidValue, msg);
}

static Expected<long long> parseInt(const std::string &opt,
                                    const std::string &value, long long min) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 0);
  if (value.empty() || *end || errno == ERANGE || v < min)
    return usageError(opt + " expects an integer >= " + std::to_string(min) +
                      ", got '" + value + "'");
  return v;
}

Expected<RunOptions> kaio::run::parseCommandLine(int argc,
                                                 const char *const *argv) {
  RunOptions opts;
  bool haveGrid = false, haveBlock = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos &&
        arg.find('=') < arg.size()) {
      std::size_t eq = arg.find('=');
      std::string name = arg.substr(0, eq);
      // --arg a=... and --out c=... contain '=' in their value: only split
      // options whose value never does.
      if (name != "--arg" && name != "--buffer" && name != "--out") {
        value = arg.substr(eq + 1);
        arg = name;
        hasInlineValue = true;
      }
    }
    auto needValue = [&]() -> Expected<std::string> {
      if (hasInlineValue)
        return value;
      if (i + 1 >= argc)
        return usageError(arg + " expects a value");
      return std::string(argv[++i]);
    };
    if (arg == "-h" || arg == "--help") {
      opts.help = true;
      return opts;
    }
    if (arg == "--time") {
      opts.time = true;
    } else if (arg == "--interpret") {
      opts.interpret = true;
    } else if (arg == "--profile") {
      opts.profile = true;
    } else if (arg == "--profile-json") {
      Expected<std::string> v = needValue();
      if (!v)
        return v.error();
      opts.profileJson = *v;
    } else if (arg == "--chip") {
      Expected<std::string> v = needValue();
      if (!v)
        return v.error();
      opts.chip = *v;
    } else if (arg == "--verbose" || arg == "-v") {
      opts.verbose = true;
    } else if (arg == "--kernel" || arg == "--grid" || arg == "--block" ||
               arg == "--cluster" || arg == "--smem" || arg == "--arg" || arg == "--buffer" ||
               arg == "--print" ||
               arg == "--out" || arg == "--reps" || arg == "--warmup" ||
               arg == "--seed" || arg == "--device" || arg == "--profile-top") {
      Expected<std::string> v = needValue();
      if (!v)
        return v.takeError();
      if (arg == "--kernel") {
        opts.kernel = *v;
      } else if (arg == "--grid" || arg == "--block") {
        Expected<Dim3> d = parseDim3(*v);
        if (!d)
          return d.takeError().addContext(arg);
        (arg == "--grid" ? opts.grid : opts.block) = *d;
        (arg == "--grid" ? haveGrid : haveBlock) = true;
      } else if (arg == "--cluster") {
        Expected<Dim3> d = parseDim3(*v);
        if (!d)
          return d.takeError().addContext(arg);
        opts.cluster = *d;
      } else if (arg == "--arg" || arg == "--buffer") {
        Expected<ArgSpec> spec = parseArgSpec(*v);
        if (!spec)
          return spec.takeError();
        for (const ArgSpec &other : opts.args)
          if (other.name == spec->name)
            return usageError(arg + ": duplicate argument name '" +
                              spec->name + "'");
        if (arg == "--buffer") {
          if (!spec->isBuffer)
            return usageError("--buffer " + spec->text +
                              ": expected name=type[count]:init");
          spec->passed = false;
        }
        opts.args.push_back(std::move(*spec));
      } else if (arg == "--print") {
        opts.prints.push_back(*v);
      } else if (arg == "--out") {
        std::size_t eq = v->find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v->size())
          return usageError("--out expects NAME=FILE, got '" + *v + "'");
        opts.outs.emplace_back(v->substr(0, eq), v->substr(eq + 1));
      } else if (arg == "--seed") {
        Expected<long long> n = parseInt(arg, *v, 0);
        if (!n)
          return n.takeError();
        opts.seed = std::uint64_t(*n);
      } else {
        Expected<long long> n = parseInt(arg, *v, arg == "--reps" ? 1 : 0);
        if (!n)
          return n.takeError();
        if (arg == "--smem")
          opts.sharedBytes = unsigned(*n);
        else if (arg == "--reps")
          opts.reps = int(*n);
        else if (arg == "--warmup")
          opts.warmup = int(*n);
        else if (arg == "--profile-top")
          opts.profileTop = int(std::min<long long>(*n, 1 << 20));
        else
          opts.device = int(*n);
      }
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return usageError("unknown option '" + arg + "'");
    } else if (opts.input.empty()) {
      opts.input = arg;
    } else {
      return usageError("more than one input file ('" + opts.input +
                        "' and '" + arg + "')");
    }
  }
  if (opts.input.empty())
    return usageError("no input file");
  if (opts.kernel.empty())
    return usageError("missing --kernel NAME");
  if (!haveGrid || !haveBlock)
    return usageError(std::string("missing ") +
                      (!haveGrid ? "--grid" : "--block"));
  if ((opts.profile || !opts.profileJson.empty()) && !opts.interpret)
    return usageError(std::string(opts.profile ? "--profile" : "--profile-json") +
                      " needs --interpret (the profile comes from the CPU "
                      "interpreter; on a GPU use Nsight Compute)");
  auto isBuffer = [&](const std::string &name) {
    for (const ArgSpec &a : opts.args)
      if (a.name == name)
        return a.isBuffer;
    return false;
  };
  // A tensor map describes an earlier buffer, within its elements.
  for (auto it = opts.args.begin(); it != opts.args.end(); ++it) {
    if (!it->isTensorMap)
      continue;
    auto buffer = std::find_if(opts.args.begin(), it, [&](const ArgSpec &a) {
      return a.isBuffer && a.name == it->mapBuffer;
    });
    if (buffer == it)
      return usageError("--arg " + it->text + ": no earlier buffer argument "
                        "named '" + it->mapBuffer + "'");
    std::uint64_t elements = 1;
    for (std::uint64_t d : it->mapDims)
      elements *= d;
    if (elements > buffer->count)
      return usageError("--arg " + it->text + ": the shape has " +
                        std::to_string(elements) + " elements but '" +
                        buffer->name + "' holds " +
                        std::to_string(buffer->count));
  }
  for (const std::string &name : opts.prints)
    if (!isBuffer(name))
      return usageError("--print " + name + ": no buffer argument named '" +
                        name + "'");
  for (const auto &out : opts.outs)
    if (!isBuffer(out.first))
      return usageError("--out " + out.first + "=...: no buffer argument "
                        "named '" + out.first + "'");
  return opts;
}

static bool hasSuffix(const std::string &s, const char *suffix) {
  std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

static Expected<std::vector<HostArg>> prepareArgs(const RunOptions &opts) {
  std::vector<HostArg> args;
  for (const ArgSpec &spec : opts.args) {
    HostArg arg;
    arg.spec = spec;
    if (spec.isBuffer) {
      Expected<HostArray> data = initHostArray(spec, opts.seed);
      if (!data)
        return data.takeError();
      arg.data = std::move(*data);
    }
    args.push_back(std::move(arg));
  }
  return args;
}

static Error reportResults(const RunOptions &opts,
                           const std::vector<HostArg> &args,
                           std::ostream &out) {
  auto find = [&](const std::string &name) -> const HostArg * {
    for (const HostArg &a : args)
      if (a.spec.name == name)
        return &a;
    return nullptr;
  };
  for (const std::string &name : opts.prints)
    out << formatArray(name, find(name)->data);
  for (const auto &[name, path] : opts.outs) {
    const HostArray &data = find(name)->data;
    if (Error e = hasSuffix(path, ".npy") ? writeNpy(path, data)
                                          : writeRaw(path, data))
      return e;
  }
  return Error::success();
}

namespace {
/// Everything that happens on the GPU.
class GpuRun {
public:
  GpuRun(const RunOptions &opts, std::vector<HostArg> &args, std::ostream &out)
      : opts_(opts), args_(args), out_(out) {}

  Error run(const std::string &code, bool isPtx) {
    Expected<rt::Device> dev = rt::Device::open(opts_.device);
    if (!dev)
      return dev.takeError();
    rt::Device &device = *dev;
    if (opts_.verbose)
      out_ << device.properties().str();

    rt::ModuleLoadOptions loadOpts;
    loadOpts.name = opts_.input;
    Expected<rt::Module> mod =
        isPtx ? rt::Module::loadPtx(device, code, loadOpts)
              : rt::Module::loadBinary(device, code.data(), code.size(),
                                       loadOpts);
    if (!mod)
      return mod.takeError();
    Expected<rt::Kernel> kernel = mod->getKernel(opts_.kernel);
    if (!kernel)
      return kernel.takeError();
    if (opts_.verbose)
      printKernelInfo(*mod, *kernel);

    // Checked before anything is uploaded, as --interpret checks them.
    if (Error e = checkArgsAgainstSignature(kernel->signature(), args_))
      return e;
    // Buffers are uploaded, scalars marshalled, in --arg order.
    std::vector<rt::DeviceBuffer<unsigned char>> buffers(args_.size());
    std::vector<std::uint64_t> addresses(args_.size(), 0);
    for (std::size_t i = 0; i < args_.size(); ++i) {
      const HostArg &a = args_[i];
      if (!a.spec.isBuffer)
        continue;
      Expected<rt::DeviceBuffer<unsigned char>> buf =
          rt::DeviceBuffer<unsigned char>::fromHost(device, a.data.bytes);
      if (!buf)
        return buf.takeError().addContext("uploading --arg " + a.spec.name);
      buffers[i] = std::move(*buf);
      addresses[i] = buffers[i].ptr();
    }
    // Tensor maps over the uploaded buffers.
    std::vector<std::optional<rt::TensorMap>> maps(args_.size());
    std::vector<const rt::TensorMap *> mapPtrs(args_.size(), nullptr);
    for (std::size_t i = 0; i < args_.size(); ++i) {
      const ArgSpec &spec = args_[i].spec;
      if (!spec.isTensorMap)
        continue;
      std::size_t b = bufferIndex(spec.mapBuffer);
      Expected<rt::TensorMap> map = rt::makeTensorMap(
          device, tensorMapDesc(spec, args_[b].spec.type, addresses[b]));
      if (!map)
        return map.takeError().addContext("--arg " + spec.name);
      maps[i] = std::move(*map);
      mapPtrs[i] = &*maps[i];
    }
    std::vector<rt::KernelArg> kernelArgs =
        toKernelArgs(args_, addresses, mapPtrs);

    rt::LaunchConfig cfg;
    cfg.grid = opts_.grid;
    cfg.block = opts_.block;
    cfg.cluster = opts_.cluster;
    cfg.dynamicSharedBytes = opts_.sharedBytes;
    // The tool opts in on the user's behalf: asking for --smem is intent.
    if (int(opts_.sharedBytes) > kernel->attributes().maxDynamicSharedBytes)
      if (Error e = kernel->setMaxDynamicSharedMemory(opts_.sharedBytes))
        return e;
    if (Error e = kernel->launchArgs(cfg, kernelArgs))
      return e;
    if (Error e = device.synchronize())
      return e.addContext("running kernel '" + opts_.kernel + "'");

    if (opts_.time)
      if (Error e = time(device, *kernel, cfg, kernelArgs))
        return e;

    for (std::size_t i = 0; i < args_.size(); ++i)
      if (args_[i].spec.isBuffer)
        if (Error e = buffers[i].copyToHost(args_[i].data.bytes.data(),
                                            args_[i].data.bytes.size()))
          return e.addContext("downloading --arg " + args_[i].spec.name);
    return Error::success();
  }

private:
  std::size_t bufferIndex(const std::string &name) const {
    for (std::size_t i = 0; i < args_.size(); ++i)
      if (args_[i].spec.isBuffer && args_[i].spec.name == name)
        return i;
    return 0; // parseCommandLine checked it exists
  }

  void printKernelInfo(const rt::Module &mod, const rt::Kernel &kernel) {
    const rt::FunctionAttributes &a = kernel.attributes();
    out_ << "module " << mod.name() << ": cache "
         << rt::getCacheStatusName(mod.cacheStatus()) << "\n"
         << "kernel " << kernel.name() << ": " << a.numRegs << " registers, "
         << a.staticSharedBytes << " B static shared, " << a.localBytes
         << " B local, max " << a.maxThreadsPerBlock << " threads/block\n";
    if (const rt::KernelSignature *sig = kernel.signature())
      out_ << "signature " << sig->str() << "\n";
    if (!mod.jitInfoLog().empty())
      out_ << mod.jitInfoLog() << "\n";
  }

  /// Kernels rewrite their outputs, so timing repeats on the same buffers
  /// after the checked run: results printed are those of the last launch.
  Error time(rt::Device &device, rt::Kernel &kernel, rt::LaunchConfig cfg,
             std::vector<rt::KernelArg> &kernelArgs) {
    Expected<rt::Stream> stream = rt::Stream::create(device);
    if (!stream)
      return stream.takeError();
    cfg.stream = &*stream;
    Expected<rt::Event> start = rt::Event::create(device);
    Expected<rt::Event> stop = rt::Event::create(device);
    if (!start)
      return start.takeError();
    if (!stop)
      return stop.takeError();
    for (int i = 0; i < opts_.warmup; ++i)
      if (Error e = kernel.launchArgs(cfg, kernelArgs))
        return e;
    std::vector<float> ms;
    for (int i = 0; i < opts_.reps; ++i) {
      if (Error e = start->record(&*stream))
        return e;
      if (Error e = kernel.launchArgs(cfg, kernelArgs))
        return e;
      if (Error e = stop->record(&*stream))
        return e;
      if (Error e = stop->synchronize())
        return e;
      Expected<float> t = rt::elapsedMs(*start, *stop);
      if (!t)
        return t.takeError();
      ms.push_back(*t);
    }
    std::sort(ms.begin(), ms.end());
    float median = ms.size() % 2 ? ms[ms.size() / 2]
                                 : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "time %s: median %.4f ms, min %.4f ms (%d runs after %d "
                  "warm-up)\n",
                  opts_.kernel.c_str(), median, ms.front(), opts_.reps,
                  opts_.warmup);
    out_ << buf;
    return Error::success();
  }

  const RunOptions &opts_;
  std::vector<HostArg> &args_;
  std::ostream &out_;
};
} // namespace

static Expected<std::string> readInput(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error::make(ErrorCode::NotFound,
                       "cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

int kaio::run::runTool(int argc, const char *const *argv,
                       const RunHooks &hooks, std::ostream &out,
                       std::ostream &err) {
  Expected<RunOptions> parsed = parseCommandLine(argc, argv);
  if (!parsed) {
    err << "kaio-run: error: " << parsed.error().message() << "\n"
        << "(run 'kaio-run --help' for usage)\n";
    return ExitFailure;
  }
  const RunOptions &opts = *parsed;
  if (opts.help) {
    out << getUsage();
    return ExitOk;
  }
  auto fail = [&](const Error &e, int code = ExitFailure) {
    err << "kaio-run: error: " << e.message() << "\n";
    return code;
  };

  bool isPtx = hasSuffix(opts.input, ".ptx");
  bool isBinary = hasSuffix(opts.input, ".cubin") ||
                  hasSuffix(opts.input, ".fatbin");
  if (!isPtx && !isBinary && !hooks.compileToPtx) {
    err << "kaio-run: error: this build of kaio-run supports only .ptx (and "
           ".cubin/.fatbin) input; '"
        << opts.input
        << "' needs the KAIO compiler (configure with "
           "-DKAIO_ENABLE_COMPILER=ON)\n";
    return ExitUnsupported;
  }

  Expected<std::vector<HostArg>> args = prepareArgs(opts);
  if (!args)
    return fail(args.error());

  if (opts.interpret) {
    if (!hooks.interpret) {
      err << "kaio-run: error: --interpret is not available in this build "
             "(the CPU interpreter comes with the KAIO compiler; configure "
             "with -DKAIO_ENABLE_COMPILER=ON); this build supports only .ptx "
             "on a GPU\n";
      return ExitUnsupported;
    }
    if (Error e = hooks.interpret(opts, *args))
      return fail(e);
    if (Error e = reportResults(opts, *args, out))
      return fail(e);
    return ExitOk;
  }

  if (Error e = rt::checkDriver()) {
    err << "kaio-run: error: no GPU/driver available: " << e.message() << "\n"
        << "kaio-run: hint: use --interpret to run on the CPU interpreter "
           "(needs a build with the KAIO compiler)\n";
    return ExitNoGpu;
  }
  Expected<int> count = rt::getDeviceCount();
  if (count && *count == 0) {
    err << "kaio-run: error: no GPU/driver available: the CUDA driver "
           "reports no device\n"
        << "kaio-run: hint: use --interpret to run on the CPU interpreter\n";
    return ExitNoGpu;
  }

  std::string code;
  if (isPtx || isBinary) {
    Expected<std::string> data = readInput(opts.input);
    if (!data)
      return fail(data.error());
    code = std::move(*data);
  } else {
    Expected<std::string> ptx = hooks.compileToPtx(opts);
    if (!ptx)
      return fail(ptx.error());
    code = std::move(*ptx);
    isPtx = true;
  }

  GpuRun gpu(opts, *args, out);
  if (Error e = gpu.run(code, isPtx))
    return fail(e);
  if (Error e = reportResults(opts, *args, out))
    return fail(e);
  return ExitOk;
}
