#include "TestUtils.h"
