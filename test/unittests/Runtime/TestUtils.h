//===- TestUtils.h - Helpers for the runtime tests ---------------*- C++ -*-===//

#ifndef KAIO_TEST_UNITTESTS_RUNTIME_TESTUTILS_H
#define KAIO_TEST_UNITTESTS_RUNTIME_TESTUTILS_H

#include "Kaio/Runtime/Device.h"

#include <cstdlib>
#include <optional>
#include <string>

namespace kaio::rt::test {

/// Sets (or unsets, with nullptr) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

private:
  std::string name_;
  std::optional<std::string> old_;
};

/// A fresh empty directory under $TMPDIR, removed with its contents.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return path_; }
  /// Number of regular files directly inside.
  int countFiles() const;

private:
  std::string path_;
};

/// Empty when a real GPU is usable, else why not (for GTEST_SKIP).
std::string whyNoRealGpu();

} // namespace kaio::rt::test

#endif // KAIO_TEST_UNITTESTS_RUNTIME_TESTUTILS_H
