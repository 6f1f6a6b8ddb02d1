#ifndef STEWARD_CCRYPTO_SHIM_H
#define STEWARD_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

// Loads libcrypto.so.3 once (the functions ArchiveKit calls are forwarders into it,
// CCrypto.c). NULL when loaded, else why it cannot be, naming the library and dlerror();
// call it before any other function of libcrypto.
const char *_Nullable steward_crypto_load(void);

#endif
