// SPDX-License-Identifier: MIT
#include "tests/support/testsupport.h"
