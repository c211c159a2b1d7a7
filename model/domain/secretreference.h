// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace tidemark {

// Where the value of a `${NAME}` reference comes from. Settings that would hold a secret (a
// webhook URL with a token) store the reference, never the value; the value is looked up at
// send time. The environment is the one source today; the window's keychain support can add a
// source (e.g. one answering `${keychain:NAME}`) without changing what is stored.
class SecretSource {
public:
    virtual ~SecretSource() = default;
    // The value for `name`, or nullopt when this source does not have it.
    virtual std::optional<QString> lookup(const QString &name) const = 0;
};

// Reads the process environment at lookup time (a systemd unit's Environment=/EnvironmentFile=,
// or the shell that runs tidemark-cli).
class EnvironmentSecretSource : public SecretSource {
public:
    std::optional<QString> lookup(const QString &name) const override;
};

// `text` with every `${NAME}` replaced by its value.
struct ResolvedSecrets {
    QString text;
    QStringList missing; // names no source had; `text` keeps their references
    QStringList values;  // the values put in, so messages can be scrubbed of them (redact())

    bool complete() const { return missing.isEmpty(); }
    // `message` with every resolved value replaced by "***": Qt's network errors quote the URL.
    QString redact(const QString &message) const;
};

// The names referenced as `${NAME}` in `text`, in order, without repeats.
QStringList secretReferences(const QString &text);
ResolvedSecrets resolveSecretReferences(const QString &text, const SecretSource &source);

} // namespace tidemark
