// SPDX-License-Identifier: MIT
#include "model/domain/deletepolicy.h"

#include "model/common/duration.h"
#include "model/common/error.h"

#include <QRegularExpression>

namespace tidemark {
namespace {

constexpr int kMaxCheckEvery = 1000;
constexpr qint64 kTenYearsMs = 3650LL * 86'400'000;

} // namespace

qint64 DeletePolicy::graceMs() const {
    if (grace.isEmpty())
        return kDefaultGraceMs;
    return grace == QLatin1String("0s") ? 0 : parseDurationMs(grace, QStringLiteral("delete grace"));
}

QString DeletePolicy::actionText() const {
    switch (action) {
    case Action::Remove:
        return QStringLiteral("remove");
    case Action::Mark:
        return QStringLiteral("mark:") + markColumn;
    case Action::Ignore:
        break;
    }
    return QStringLiteral("ignore");
}

void parseDeleteAction(const QString &text, DeletePolicy &policy, const QString &what) {
    const QString trimmed = text.trimmed();
    if (trimmed == QLatin1String("ignore")) {
        policy.action = DeletePolicy::Action::Ignore;
        policy.markColumn.clear();
    } else if (trimmed == QLatin1String("remove")) {
        policy.action = DeletePolicy::Action::Remove;
        policy.markColumn.clear();
    } else if (trimmed.startsWith(QLatin1String("mark:")) && trimmed.size() > 5) {
        policy.action = DeletePolicy::Action::Mark;
        policy.markColumn = trimmed.mid(5);
    } else {
        throw ValidationError(
            QStringLiteral("%1: '%2' is not ignore, remove or mark:COLUMN").arg(what, text));
    }
}

int parseDeleteCheck(const QString &text, const QString &what) {
    const QString trimmed = text.trimmed();
    if (trimmed == QLatin1String("every"))
        return 1;
    bool ok = false;
    const int every = trimmed.toInt(&ok);
    if (!ok || every < 1 || every > kMaxCheckEvery)
        throw ValidationError(QStringLiteral("%1: '%2' is not every or a number from 1 to %3")
                                  .arg(what, text)
                                  .arg(kMaxCheckEvery));
    return every;
}

double parseDeletePercent(const QString &text, const QString &what) {
    QString trimmed = text.trimmed();
    if (trimmed.endsWith(QLatin1Char('%')))
        trimmed.chop(1);
    bool ok = false;
    const double percent = trimmed.toDouble(&ok);
    if (!ok || !(percent > 0) || percent > 100)
        throw ValidationError(
            QStringLiteral("%1: '%2' is not a share above 0% and at most 100% (e.g. 5%)").arg(what, text));
    return percent;
}

QString parseDeleteGrace(const QString &text, const QString &what) {
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return QString();
    // No grace at all is a choice parseDurationMs (every duration is longer than zero) refuses.
    static const QRegularExpression zero(QStringLiteral("^0+(ms|s|m|h|d)?$"));
    if (zero.match(trimmed).hasMatch())
        return QStringLiteral("0s");
    const qint64 ms = parseDurationMs(trimmed, what);
    if (ms < 0 || ms > kTenYearsMs)
        throw ValidationError(QStringLiteral("%1: '%2' is not from 0s to 3650d").arg(what, text));
    return durationText(ms);
}

QJsonObject deletePolicyToJson(const DeletePolicy &policy) {
    QJsonObject object;
    object.insert(QStringLiteral("action"), policy.actionText());
    object.insert(QStringLiteral("check_every"), policy.checkEvery);
    object.insert(QStringLiteral("max_percent"), policy.maxPercent);
    object.insert(QStringLiteral("grace"),
                  policy.grace.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(policy.grace));
    return object;
}

DeletePolicy deletePolicyFromJson(const QJsonObject &object, const QString &what) {
    DeletePolicy policy;
    if (object.isEmpty())
        return policy;
    parseDeleteAction(object.value(QStringLiteral("action")).toString(QStringLiteral("ignore")), policy,
                      what + QStringLiteral(".action"));
    const QJsonValue every = object.value(QStringLiteral("check_every"));
    if (!every.isUndefined())
        policy.checkEvery =
            parseDeleteCheck(QString::number(every.toInt(0)), what + QStringLiteral(".check_every"));
    const QJsonValue percent = object.value(QStringLiteral("max_percent"));
    if (!percent.isUndefined())
        policy.maxPercent = parseDeletePercent(QString::number(percent.toDouble(0), 'g', 17),
                                               what + QStringLiteral(".max_percent"));
    policy.grace =
        parseDeleteGrace(object.value(QStringLiteral("grace")).toString(), what + QStringLiteral(".grace"));
    return policy;
}

} // namespace tidemark
