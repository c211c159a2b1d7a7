// SPDX-License-Identifier: MIT
#include "model/domain/alertsettings.h"

#include "model/common/error.h"
#include "model/domain/secretreference.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace tidemark {
namespace {

const QString kHowToPass =
    QStringLiteral("put the secret in an environment variable and reference it in the URL, e.g. "
                   "--webhook 'https://hooks.example.com/notify?token=${TIDEMARK_WEBHOOK_TOKEN}' "
                   "(read when an alert is sent; for the runner, put it in the unit's environment file)");

// Query keys whose values are credentials whatever they look like.
bool isSecretKey(const QString &key) {
    static const QRegularExpression pattern(
        QStringLiteral(R"(token|secret|passw|pwd|key|auth|sig|credential|session|code)"),
        QRegularExpression::CaseInsensitiveOption);
    return pattern.match(key).hasMatch();
}

// A long run of letters and digits mixed, as API tokens and webhook path secrets are (Slack's
// /services/T…/B…/xxxx, Discord's /api/webhooks/ID/TOKEN); words and short ids are not.
bool looksLikeToken(const QString &text) {
    static const QRegularExpression tokenChars(QStringLiteral(R"(^[A-Za-z0-9_\-+/=.~]{20,}$)"));
    if (!tokenChars.match(text).hasMatch())
        return false;
    bool letter = false;
    bool digit = false;
    for (const QChar c : text) {
        letter = letter || c.isLetter();
        digit = digit || c.isDigit();
    }
    return letter && digit;
}

[[noreturn]] void refuseSecret(const QString &what) {
    throw ValidationError(
        QStringLiteral("--webhook: %1 would be stored in clear in the workspace; %2").arg(what, kHowToPass));
}

} // namespace

QStringList AlertSettings::defaultStatuses() {
    return {QStringLiteral("failed"), QStringLiteral("warning"), QStringLiteral("interrupted")};
}

QStringList AlertSettings::runStatuses() {
    return defaultStatuses() << QStringLiteral("cancelled");
}

QStringList AlertSettings::allowedStatuses() {
    return runStatuses() << QStringLiteral("stalled");
}

AlertSettings AlertSettings::workspaceDefaults() {
    AlertSettings settings;
    settings.on << QStringLiteral("stalled");
    return settings;
}

QJsonObject alertSettingsToJson(const AlertSettings &settings) {
    const auto optional = [](const QString &text) {
        return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
    };
    QJsonObject object;
    object.insert(QStringLiteral("hook"), optional(settings.hookCommand));
    object.insert(QStringLiteral("hook_timeout_ms"), settings.hookTimeoutMs);
    object.insert(QStringLiteral("hook_env"), QJsonArray::fromStringList(settings.hookEnv));
    object.insert(QStringLiteral("webhook"), optional(settings.webhookUrl));
    object.insert(QStringLiteral("webhook_timeout_ms"), settings.webhookTimeoutMs);
    object.insert(QStringLiteral("on"), QJsonArray::fromStringList(settings.on));
    return object;
}

AlertSettings alertSettingsFromJson(const QJsonObject &object) {
    AlertSettings settings;
    settings.hookCommand = object.value(QStringLiteral("hook")).toString();
    settings.hookTimeoutMs = object.value(QStringLiteral("hook_timeout_ms")).toInt(settings.hookTimeoutMs);
    for (const QJsonValue &name : object.value(QStringLiteral("hook_env")).toArray())
        settings.hookEnv.append(name.toString());
    settings.webhookUrl = object.value(QStringLiteral("webhook")).toString();
    settings.webhookTimeoutMs =
        object.value(QStringLiteral("webhook_timeout_ms")).toInt(settings.webhookTimeoutMs);
    if (object.contains(QStringLiteral("on"))) {
        settings.on.clear();
        for (const QJsonValue &status : object.value(QStringLiteral("on")).toArray())
            settings.on.append(status.toString());
    }
    return settings;
}

QStringList parseAlertStatuses(const QString &text) {
    QStringList statuses;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString status = part.trimmed().toLower();
        if (!AlertSettings::allowedStatuses().contains(status))
            throw ValidationError(
                QStringLiteral("--on: '%1' is not one of %2")
                    .arg(part.trimmed(), AlertSettings::allowedStatuses().join(QLatin1Char(','))));
        if (!statuses.contains(status))
            statuses.append(status);
    }
    if (statuses.isEmpty())
        throw ValidationError(QStringLiteral("--on: no status given (one or more of %1)")
                                  .arg(AlertSettings::allowedStatuses().join(QLatin1Char(','))));
    return statuses;
}

QStringList parseHookEnv(const QString &text, const QString &what) {
    static const QRegularExpression namePattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    QStringList names;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString name = part.trimmed();
        if (!namePattern.match(name).hasMatch())
            throw ValidationError(
                QStringLiteral("%1: '%2' is not an environment variable name (letters, digits, _)")
                    .arg(what, name));
        if (!names.contains(name))
            names.append(name);
    }
    return names;
}

void checkWebhookUrl(const QString &text) {
    // References are checked as the placeholder they stand for: whatever they resolve to is
    // not stored, so they may stand anywhere, credentials included.
    QString shape = text.trimmed();
    for (const QString &name : secretReferences(shape))
        shape.replace(QStringLiteral("${%1}").arg(name), QStringLiteral("ref"));
    const QUrl url(shape, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || url.host().isEmpty() ||
        (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
        throw ValidationError(
            QStringLiteral("--webhook: '%1' is not an http:// or https:// URL with a host").arg(text));

    if (!url.password().isEmpty() && url.password() != QLatin1String("ref"))
        refuseSecret(QStringLiteral("the password in the URL"));
    if (!url.userName().isEmpty() && url.userName() != QLatin1String("ref") && url.password().isEmpty())
        refuseSecret(QStringLiteral("the user part of the URL (often a token)"));

    const auto items = QUrlQuery(url).queryItems(QUrl::FullyDecoded);
    for (const auto &[key, value] : items) {
        if (value == QLatin1String("ref") || value.isEmpty())
            continue;
        if (isSecretKey(key) || looksLikeToken(value))
            refuseSecret(QStringLiteral("the query value of '%1'").arg(key));
    }
    const QStringList segments = url.path().split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < segments.size(); ++i) {
        if (looksLikeToken(segments[i]))
            refuseSecret(QStringLiteral("path segment %1 (token-like)").arg(i + 1));
    }
}

} // namespace tidemark
