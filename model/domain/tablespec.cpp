// SPDX-License-Identifier: MIT
#include "model/domain/tablespec.h"

namespace tidemark {

QString writeModeName(WriteMode mode) {
    switch (mode) {
    case WriteMode::Merge:
        return QStringLiteral("merge");
    case WriteMode::Overwrite:
        return QStringLiteral("overwrite");
    case WriteMode::Append:
        break;
    }
    return QStringLiteral("append");
}

std::optional<WriteMode> writeModeFromName(const QString &name) {
    for (const WriteMode mode : {WriteMode::Append, WriteMode::Merge, WriteMode::Overwrite}) {
        if (writeModeName(mode) == name)
            return mode;
    }
    return std::nullopt;
}

QString zeroDatesName(ZeroDates policy) {
    return policy == ZeroDates::Null ? QStringLiteral("null") : QStringLiteral("fail");
}

std::optional<ZeroDates> zeroDatesFromName(const QString &name) {
    for (const ZeroDates policy : {ZeroDates::Fail, ZeroDates::Null}) {
        if (zeroDatesName(policy) == name)
            return policy;
    }
    return std::nullopt;
}

} // namespace tidemark
