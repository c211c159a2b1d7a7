// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <atomic>

namespace tidemark {

class Workspace;

struct VerifyResult {
    qint64 tableId = 0;
    QString source;
    QString target;
    bool matches = false;
    qint64 sourceRows = 0; // rows compared on each side
    qint64 targetRows = 0;
    qint64 missingInTarget = 0; // keys in source, not in target
    qint64 extraInTarget = 0;   // keys in target, not in source
    qint64 differing = 0;       // same key, different values
    QString difference;         // one line for people; empty when matching
    QStringList examples;       // a few keys at fault
};

// Compares the source's rows up to the table's watermark with the target's (DESIGN.md,
// "Verify"): counts and a checksum over all copied columns, key by key where there is a key;
// keys whose source version is newer than the watermark are left out of both sides.
// Throws Error naming the table when a side cannot be read. `cancel`, when set, is checked
// between batches and ends the comparison with Error("cancelled").
VerifyResult verifyTable(Workspace &workspace, qint64 tableId, const std::atomic_bool *cancel = nullptr);

} // namespace tidemark
