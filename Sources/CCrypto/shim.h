#ifndef STEWARD_CCRYPTO_SHIM_H
#define STEWARD_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/sha.h>

#endif
