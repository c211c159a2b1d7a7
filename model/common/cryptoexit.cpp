// SPDX-License-Identifier: MIT
#include "model/common/cryptoexit.h"

#include <openssl/crypto.h>

namespace tidemark {

void keepCryptoStateUntilExit() {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
}

} // namespace tidemark
