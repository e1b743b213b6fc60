//===- TestUtils.cpp ------------------------------------------------------===//

#include "TestUtils.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kaio::rt;
using namespace kaio::rt::test;

TempDir::TempDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/kaio-rt-XXXXXX";
  if (char *dir = ::mkdtemp(templ.data()))
    path_ = dir;
}

static void removeTree(const std::string &path) {
  if (DIR *dir = ::opendir(path.c_str())) {
    while (dirent *entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..")
        continue;
      std::string child = path + "/" + name;
      struct stat st;
      if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        removeTree(child);
      else
        ::unlink(child.c_str());
    }
    ::closedir(dir);
  }
  ::rmdir(path.c_str());
}

TempDir::~TempDir() {
  if (!path_.empty())
    removeTree(path_);
}

int TempDir::countFiles() const {
  int count = 0;
  if (DIR *dir = ::opendir(path_.c_str())) {
    while (dirent *entry = ::readdir(dir)) {
      struct stat st;
      std::string child = path_ + "/" + entry->d_name;
      if (::stat(child.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        ++count;
    }
    ::closedir(dir);
  }
  return count;
}

std::string kaio::rt::test::whyNoRealGpu() {
  ScopedEnv realDriver("KAIO_CUDA_DRIVER", nullptr);
  Expected<int> count = getDeviceCount();
  if (!count)
    return "no usable CUDA driver: " + count.error().message();
  if (*count == 0)
    return "the CUDA driver reports no GPU";
  return {};
}
