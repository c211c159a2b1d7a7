// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <atomic>

namespace tidemark {

class Workspace;

// One row at fault, for people and for `verify --json` ("differences").
struct VerifyFault {
    enum class Kind { MissingInTarget, ExtraInTarget, Differs };
    Kind kind = Kind::Differs;
    QString key;                // {"column": value, ...}: the key columns, or the whole row without a key
    QStringList columns;        // Differs: the columns whose values differ
    bool pastWatermark = false; // ExtraInTarget: its watermark is not at or below the watermark
};

// "missing_in_target" | "extra_in_target" | "differs" (the JSON spelling).
QString verifyFaultKindName(VerifyFault::Kind kind);
// One line for people: `{"id":1} differs in ts`, `… missing in the target`, `… only in the target`.
QString verifyFaultText(const VerifyFault &fault);
QString describeRowCount(qint64 rows); // "1 row", "40,000 rows"

struct VerifyResult {
    qint64 tableId = 0;
    QString source;
    QString target;
    bool matches = false;
    qint64 sourceRows = 0; // rows compared on each side
    qint64 targetRows = 0;
    qint64 missingInTarget = 0;    // keys in source, not in target
    qint64 extraInTarget = 0;      // keys in target, not in source
    qint64 extraPastWatermark = 0; // of extraInTarget: rows past the watermark the source never had
    qint64 differing = 0;          // same key, different values
    // Source rows no window can select, left out of both sides and reported instead: a NULL
    // watermark, or one that cannot be ordered (±infinity, NaN, text that is no timestamp).
    qint64 nullWatermarkRows = 0;
    qint64 unorderableWatermarkRows = 0;
    QString difference;            // one line for people; empty when matching
    QStringList examples;          // a few keys at fault (whole rows without a key)
    QList<VerifyFault> faults;     // the same rows, with what is wrong with each
    bool comparedByRanges = false; // summed by bucket of keys in each database (VerifyMethod::Ranges)
    int differingRanges = 0;       // of those buckets, the ones read and compared row by row
};

// Ranges: each database sums its rows by bucket of keys and only the buckets that differ are
// read (a keyed table on engines that can; otherwise every row). EveryRow: every row of both
// sides is read. Both give the same result.
enum class VerifyMethod { Ranges, EveryRow };

// Compares the source's rows up to the table's watermark with the target's (docs/design.md,
// "Verify"): counts and every copied value exactly, key by key where there is a key; keys whose
// source version is newer than the watermark are left out of both sides. Target rows past the
// watermark that the source does not have there are extra. Values compare exactly (bit for bit:
// -0.0 is not 0.0, NaN is not NULL); between two engines a value may change its spelling but not
// its meaning: timestamps compare as instants to the microsecond, decimals as PostgreSQL spells
// them. Throws Error naming the table when a side cannot be read. `cancel`, when set, is checked
// between batches and ends the comparison with Error("cancelled").
VerifyResult verifyTable(Workspace &workspace, qint64 tableId, const std::atomic_bool *cancel = nullptr,
                         VerifyMethod method = VerifyMethod::Ranges);

} // namespace tidemark
