// The CPU's data cache sizes, read once at run time; the sgemm kernels derive their cache blocking
// (MC/KC/NC) from them (see sgemm_kernel_isa.h).
//
// Source, in order: Linux sysfs (/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}: the same
// source `torch-envcheck bench` reads for its working-set sizes), then glibc's sysconf
// (_SC_LEVEL{1,2,3}_*CACHE_SIZE, which asks cpuid on x86), then fixed sizes of a common desktop CPU
// (32 KiB / 512 KiB / 8 MiB), reported as "assumed".
#include "ops/cpu/kernels.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>

namespace envcheck {
namespace {

// "48K" / "1024K" / "32M" / "65536" -> bytes; 0 when unreadable.
int64_t parse_size(const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || v <= 0) return 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    default: return v;
  }
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

bool from_sysfs(CacheSizes& out) {
  bool any = false;
  for (int idx = 0; idx < 16; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) continue;
    if (type != "Data" && type != "Unified") continue;
    const int level = std::atoi(read_line(dir + "level").c_str());
    const int64_t size = parse_size(read_line(dir + "size"));
    if (size <= 0) continue;
    if (level == 1) out.l1d = size;
    else if (level == 2) out.l2 = size;
    else if (level == 3) out.l3 = size;
    else continue;
    any = true;
  }
  return any;
}

bool from_sysconf(CacheSizes& out) {
  bool any = false;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  for (auto [name, dst] : {std::pair<int, int64_t*>{_SC_LEVEL1_DCACHE_SIZE, &out.l1d},
                           {_SC_LEVEL2_CACHE_SIZE, &out.l2}, {_SC_LEVEL3_CACHE_SIZE, &out.l3}}) {
    const long v = sysconf(name);
    if (v > 0 && *dst == 0) {
      *dst = v;
      any = true;
    }
  }
#endif
  return any;
}

CacheSizes detect() {
  CacheSizes c{0, 0, 0, ""};
  std::string src;
  if (from_sysfs(c)) src = "sysfs";
  if ((c.l1d == 0 || c.l2 == 0 || c.l3 == 0) && from_sysconf(c)) src += src.empty() ? "sysconf" : "+sysconf";
  bool assumed = false;
  if (c.l1d <= 0) { c.l1d = 32 << 10; assumed = true; }
  if (c.l2 <= 0) { c.l2 = 512 << 10; assumed = true; }
  if (c.l3 <= 0) { c.l3 = 8 << 20; assumed = true; }  // also a CPU without L3: treat L2 as the last level
  if (assumed) src += src.empty() ? "assumed" : "+assumed";
  c.source = src;
  return c;
}

}  // namespace

const CacheSizes& cpu_cache_sizes() {
  static const CacheSizes sizes = detect();
  return sizes;
}

}  // namespace envcheck
