// SPDX-License-Identifier: MIT
#include "model/domain/position.h"

namespace tidemark {
namespace {

int compareTiebreaks(const QVariant &a, const QVariant &b) {
    const bool hasA = a.isValid() && !a.isNull();
    const bool hasB = b.isValid() && !b.isNull();
    if (!hasA || !hasB)
        return int(hasA) - int(hasB);
    const QPartialOrdering order = QVariant::compare(a, b);
    if (order == QPartialOrdering::Less)
        return -1;
    if (order == QPartialOrdering::Greater)
        return 1;
    if (order == QPartialOrdering::Equivalent)
        return 0;
    // Values of unrelated types (a text tiebreak against a number): a fixed, total fallback.
    return QString::compare(a.toString(), b.toString());
}

} // namespace

Position::Position(Watermark watermark, QVariant tiebreak)
    : m_watermark(std::move(watermark))
    , m_tiebreak(std::move(tiebreak)) {}

int Position::compare(const Position &other) const {
    if (m_watermark.isNull() || other.m_watermark.isNull()) {
        if (m_watermark.isNull() != other.m_watermark.isNull())
            return m_watermark.isNull() ? -1 : 1;
    } else if (const int byWatermark = m_watermark.compare(other.m_watermark); byWatermark != 0) {
        return byWatermark < 0 ? -1 : 1;
    }
    return compareTiebreaks(m_tiebreak, other.m_tiebreak);
}

QString Position::display() const {
    if (m_watermark.isNull())
        return QStringLiteral("none");
    if (!hasTiebreak())
        return m_watermark.display();
    return QStringLiteral("%1 / %2").arg(m_watermark.display(), m_tiebreak.toString());
}

} // namespace tidemark
