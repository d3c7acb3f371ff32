#include <gtest/gtest.h>

#include "calc/test_catalog.h"
