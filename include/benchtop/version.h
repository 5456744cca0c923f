/* version.h - benchtop's version, for --version and benchtop_build_info. */
#ifndef BENCHTOP_VERSION_H
#define BENCHTOP_VERSION_H

#define BENCHTOP_VERSION "0.1.0"

#endif
