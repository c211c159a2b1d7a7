// SPDX-License-Identifier: MIT
#pragma once

#include "model/common/error.h"

#include <QString>
#include <exception>

namespace tidemark {

// Inside a catch (...) block on a thread boundary (nothing throws across one): the exception in
// flight as a message for the user — an Error's own, a std::exception's what() — or `unknown`.
inline QString currentExceptionMessage(const QString &unknown) {
    try {
        throw;
    } catch (const Error &e) {
        return e.message();
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return unknown;
    }
}

} // namespace tidemark
