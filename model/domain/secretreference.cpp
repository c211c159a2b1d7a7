// SPDX-License-Identifier: MIT
#include "model/domain/secretreference.h"

#include <QRegularExpression>

#include <algorithm>

namespace tidemark {
namespace {

const QRegularExpression &referencePattern() {
    static const QRegularExpression pattern(QStringLiteral(R"(\$\{([A-Za-z_][A-Za-z0-9_:.-]*)\})"));
    return pattern;
}

} // namespace

std::optional<QString> EnvironmentSecretSource::lookup(const QString &name) const {
    if (!qEnvironmentVariableIsSet(name.toLocal8Bit().constData()))
        return std::nullopt;
    return qEnvironmentVariable(name.toLocal8Bit().constData());
}

QString ResolvedSecrets::redact(const QString &message) const {
    QString result = message;
    for (const QString &value : values) {
        if (!value.isEmpty())
            result.replace(value, QStringLiteral("***"));
    }
    return result;
}

QStringList secretReferences(const QString &text) {
    QStringList names;
    auto matches = referencePattern().globalMatch(text);
    while (matches.hasNext()) {
        const QString name = matches.next().captured(1);
        if (!names.contains(name))
            names.append(name);
    }
    return names;
}

ResolvedSecrets resolveSecretReferences(const QString &text, const SecretSource &source) {
    ResolvedSecrets resolved;
    qsizetype last = 0;
    auto matches = referencePattern().globalMatch(text);
    while (matches.hasNext()) {
        const QRegularExpressionMatch match = matches.next();
        resolved.text += text.mid(last, match.capturedStart() - last);
        last = match.capturedEnd();
        const QString name = match.captured(1);
        if (const std::optional<QString> value = source.lookup(name)) {
            resolved.text += *value;
            if (!resolved.values.contains(*value))
                resolved.values.append(*value);
        } else {
            resolved.text += match.captured(0);
            if (!resolved.missing.contains(name))
                resolved.missing.append(name);
        }
    }
    resolved.text += text.mid(last);
    // Longest first, so redact() never leaves the tail of a value that contains another.
    std::sort(resolved.values.begin(), resolved.values.end(),
              [](const QString &a, const QString &b) { return a.size() > b.size(); });
    return resolved;
}

} // namespace tidemark
