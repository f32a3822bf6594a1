# Compiler settings shared by every target, and the small helpers the per-directory
# CMakeLists.txt files use.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
# C++20 designated initializers that leave members at their defaults ({.host = h}) are how option
# and request structs are meant to be written; GCC 12 would flag every one of them.
add_compile_options(-Wno-missing-field-initializers)
# GCC 12 reports -Wrestrict false positives inside libstdc++'s std::string when optimising
# ("/" + std::string(x), assigning a one-character literal: GCC bugs 105329 and 105651, fixed in
# GCC 13), so Release builds would warn about correct code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict)
endif()
if(CRAWLER_WERROR)
  add_compile_options(-Werror)
endif()
if(CRAWLER_FUZZ)
  # Every object is instrumented for coverage; only the fuzz targets link libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# crawler_add_library(<name> [SOURCES ...] [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Defines the static library crawler_<name> and its alias crawler::<name>. Headers are included
# by their path from the repository root ("lib/url/url.h"). Without SOURCES the library is
# header-only (an INTERFACE library: PUBLIC_DEPS only).
function(crawler_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    if(ARG_PRIVATE_DEPS)
      message(FATAL_ERROR "crawler_add_library(${name}): a header-only library has no PRIVATE_DEPS")
    endif()
    add_library(crawler_${name} INTERFACE)
    add_library(crawler::${name} ALIAS crawler_${name})
    target_include_directories(crawler_${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(crawler_${name} INTERFACE ${ARG_PUBLIC_DEPS})
    return()
  endif()
  add_library(crawler_${name} STATIC ${ARG_SOURCES})
  add_library(crawler::${name} ALIAS crawler_${name})
  target_include_directories(crawler_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(crawler_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# crawler_use_mimalloc(<executable>)
# Links mimalloc into a program that runs crawls (CRAWLER_MIMALLOC). Its
# malloc, free and operator new then take the place of glibc's for the whole process, including
# libcurl and RocksDB. Tests and benchmarks of single components keep the system allocator;
# a benchmark whose figures stand for a crawl process's (bench/frontier-scale's core column
# is the frontier server's work) links it as that process does.
function(crawler_use_mimalloc target)
  if(CRAWLER_MIMALLOC AND NOT CRAWLER_FUZZ)
    target_link_libraries(${target} PRIVATE mimalloc)
    target_compile_definitions(${target} PRIVATE CRAWLER_MIMALLOC=1)
  endif()
endfunction()

# crawler_add_test(<name> SOURCES ... DEPS ...)
# A GoogleTest binary registered with CTest; tests run from the build tree with
# CRAWLER_TEST_DATA pointing at tests/data.
function(crawler_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    CRAWLER_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
endfunction()

# crawler_add_fuzzer(<name> SOURCES ... DEPS ...): only with CRAWLER_FUZZ=ON.
function(crawler_add_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT CRAWLER_FUZZ)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzz_targets ${name})
endfunction()
