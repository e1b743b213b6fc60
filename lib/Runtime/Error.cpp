//===- Error.cpp ----------------------------------------------------------===//

#include "Kaio/Runtime/Error.h"

using namespace kaio::rt;

const char *kaio::rt::getErrorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Success:
    return "KAIO_SUCCESS";
  case ErrorCode::Driver:
    return "KAIO_ERROR_DRIVER";
  case ErrorCode::NoDriver:
    return "KAIO_ERROR_NO_DRIVER";
  case ErrorCode::InvalidValue:
    return "KAIO_ERROR_INVALID_VALUE";
  case ErrorCode::InvalidConfig:
    return "KAIO_ERROR_INVALID_CONFIG";
  case ErrorCode::ArgumentMismatch:
    return "KAIO_ERROR_ARGUMENT_MISMATCH";
  case ErrorCode::NotFound:
    return "KAIO_ERROR_NOT_FOUND";
  case ErrorCode::Io:
    return "KAIO_ERROR_IO";
  case ErrorCode::Parse:
    return "KAIO_ERROR_PARSE";
  case ErrorCode::Unsupported:
    return "KAIO_ERROR_UNSUPPORTED";
  }
  return "KAIO_ERROR_UNKNOWN";
}

Error Error::make(ErrorCode code, std::string message) {
  assert(code != ErrorCode::Success && code != ErrorCode::Driver);
  Error e;
  e.code_ = code;
  e.name_ = getErrorCodeName(code);
  e.description_ = std::move(message);
  return e;
}

Error Error::driver(int cudaResult, std::string name, std::string description,
                    std::string context, std::string details) {
  Error e;
  e.code_ = ErrorCode::Driver;
  e.cudaResult_ = cudaResult;
  e.name_ = std::move(name);
  e.description_ = std::move(description);
  e.context_ = std::move(context);
  e.details_ = std::move(details);
  return e;
}

Error &Error::addContext(const std::string &outer) {
  if (!*this || outer.empty())
    return *this;
  context_ = context_.empty() ? outer : outer + ": " + context_;
  return *this;
}

std::string Error::message() const {
  if (!*this)
    return "success";
  std::string msg = context_;
  if (!msg.empty())
    msg += ": ";
  if (code_ == ErrorCode::Driver)
    msg += name_ + " (" + description_ + ")";
  else
    msg += description_;
  if (!details_.empty()) {
    msg += "\n";
    msg += details_;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\0'))
      msg.pop_back();
  }
  return msg;
}
