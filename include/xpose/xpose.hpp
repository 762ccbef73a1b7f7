// xpose — umbrella header: transposes and axis permutations at the memory-bandwidth limit.
#pragma once

#include "xpose/inplace.hpp"
#include "xpose/permute.hpp"
#include "xpose/plan.hpp"
#include "xpose/problem.hpp"
#include "xpose/status.hpp"
#include "xpose/version.hpp"
