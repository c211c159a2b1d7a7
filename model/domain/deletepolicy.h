// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QString>

namespace tidemark {

// What reconcile does with the target rows whose key the source no longer has, at or below the
// table's position (table add/edit --deletes, --delete-check, --max-delete-ratio,
// --delete-grace). A watermark copy never sees a delete; this is how one reaches the target.
struct DeletePolicy {
    enum class Action { Ignore, Remove, Mark };
    static constexpr double kDefaultMaxPercent = 5.0;
    static constexpr qint64 kDefaultGraceMs = 3'600'000;

    Action action = Action::Ignore;
    QString markColumn; // Mark: the target column stamped with the time the row was found gone
    int checkEvery = 1; // after every N-th successful copy (1: every one)
    // Refused above this share of the target's rows (a source half restored, a wrong filter).
    double maxPercent = kDefaultMaxPercent;
    // Rows copied within this long are never deleted (a key being moved, a replica behind);
    // empty = one run interval of the table's schedules (reconcileTable), or kDefaultGraceMs.
    QString grace;

    bool isIgnore() const { return action == Action::Ignore; }
    qint64 graceMs() const; // `grace`, or kDefaultGraceMs when empty
    // "ignore" | "remove" | "mark:COLUMN", as --deletes takes it.
    QString actionText() const;
    bool operator==(const DeletePolicy &) const = default;
};

// --deletes: "ignore", "remove" or "mark:COLUMN". ValidationError naming `what` otherwise.
void parseDeleteAction(const QString &text, DeletePolicy &policy, const QString &what);
// --delete-check: "every" or N from 1 to 1000.
int parseDeleteCheck(const QString &text, const QString &what);
// --max-delete-ratio: a percentage above 0 and at most 100, "5%" or "5".
double parseDeletePercent(const QString &text, const QString &what);
// --delete-grace: a duration from 0s to 3650d, or "" for the default.
QString parseDeleteGrace(const QString &text, const QString &what);

// As the workspace stores it and `table list --json` and the workspace document show it:
// {"action": "remove", "check_every": 1, "max_percent": 5, "grace": null}.
QJsonObject deletePolicyToJson(const DeletePolicy &policy);
// Throws ValidationError naming `what` and the field at fault.
DeletePolicy deletePolicyFromJson(const QJsonObject &object, const QString &what);

} // namespace tidemark
