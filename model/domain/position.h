// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/watermark.h"

#include <QString>
#include <QVariant>

namespace tidemark {

// Where a table's copy stands: the last (watermark, tiebreak) written. Totally ordered: by
// watermark, then by tiebreak (no tiebreak sorts first), so "the target moved on" and "this
// is the position I started from" are plain comparisons. A null watermark is "no position yet".
class Position {
public:
    Position() = default;
    explicit Position(Watermark watermark, QVariant tiebreak = QVariant());

    const Watermark &watermark() const { return m_watermark; }
    // Invalid when there is none (no tiebreak column, or no position yet).
    const QVariant &tiebreak() const { return m_tiebreak; }
    bool isNull() const { return m_watermark.isNull(); }
    bool hasTiebreak() const { return m_tiebreak.isValid() && !m_tiebreak.isNull(); }

    int compare(const Position &other) const;
    bool operator==(const Position &other) const { return compare(other) == 0; }
    bool operator!=(const Position &other) const { return compare(other) != 0; }
    bool operator<(const Position &other) const { return compare(other) < 0; }
    bool operator>(const Position &other) const { return compare(other) > 0; }

    // For people: "none", "2025-01-01T00:00:00.000Z" or "2025-01-01T00:00:00.000Z / 42".
    QString display() const;

private:
    Watermark m_watermark;
    QVariant m_tiebreak;
};

} // namespace tidemark
