/* SPDX-License-Identifier: MIT */
/* The binary contract's fingerprint, in the manner of Envoy's abi_version.h: the SHA-256 of
 * abi.h and the ABI version it was taken at. tests/sdk/abi_version_test fails when abi.h
 * changes and these lines do not, so that a change to the binary contract is always
 * deliberate: whoever changes abi.h bumps BERTH_ABI_MINOR (append-only additions) or
 * BERTH_ABI_MAJOR (anything else), then writes the new version and hash here. */
#ifndef BERTH_ABI_VERSION_H
#define BERTH_ABI_VERSION_H

#define BERTH_ABI_FINGERPRINT_VERSION "1.3"
#define BERTH_ABI_FINGERPRINT "c2396b627918e8cd267b2cc5d634912233b762b050a17960f17b1f1879cac940"

#endif /* BERTH_ABI_VERSION_H */
