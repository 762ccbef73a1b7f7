// xpose — version. Kept in step with project(VERSION) in CMakeLists.txt (a host test checks it).
#pragma once

#define XPOSE_VERSION_MAJOR 0
#define XPOSE_VERSION_MINOR 1
#define XPOSE_VERSION_PATCH 0

namespace xpose {

/// "MAJOR.MINOR.PATCH"
constexpr const char* version() noexcept { return "0.1.0"; }

}  // namespace xpose
