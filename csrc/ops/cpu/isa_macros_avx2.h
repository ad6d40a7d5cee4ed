// The ISA macros of the AVX2 + FMA target, for a file compiled under `#pragma GCC target(...)`.
// g++ does not define them for a target pragma (only the C front end does), but sleef.h and ATen's
// vec headers select their code with them.  Include right after the pragma, before anything else;
// the pragma must name at least avx2,fma,f16c.
#ifndef __AVX__
#define __AVX__ 1
#endif
#ifndef __AVX2__
#define __AVX2__ 1
#endif
#ifndef __FMA__
#define __FMA__ 1
#endif
#ifndef __F16C__
#define __F16C__ 1
#endif
