/* SPDX-License-Identifier: MIT */
/* The binary contract's fingerprint, in the manner of Envoy's abi_version.h: the SHA-256 of
 * abi.h and the ABI version it was taken at. tests/sdk/abi_version_test fails when abi.h
 * changes and these lines do not, so that a change to the binary contract is always
 * deliberate: whoever changes abi.h bumps BERTH_ABI_MINOR (append-only additions) or
 * BERTH_ABI_MAJOR (anything else), then writes the new version and hash here. */
#ifndef BERTH_ABI_VERSION_H
#define BERTH_ABI_VERSION_H

#define BERTH_ABI_FINGERPRINT_VERSION "1.2"
#define BERTH_ABI_FINGERPRINT "b784b7e8755950b498b91bee6fae979ce488ce7b150fb66c4eac7154351a88e5"

#endif /* BERTH_ABI_VERSION_H */
