// SPDX-License-Identifier: MIT
#include "model/engine/watermarksuggestion.h"

#include <QRegularExpression>
#include <tuple>

namespace tidemark {
namespace {

// Lower ranks first.
int nameRank(const QString &name) {
    static const QRegularExpression changed(QStringLiteral("updat|modif|chang|edit|sync"),
                                            QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression made(QStringLiteral("creat|insert|added"),
                                         QRegularExpression::CaseInsensitiveOption);
    if (changed.match(name).hasMatch())
        return 0;
    if (made.match(name).hasMatch())
        return 2;
    return 1;
}

auto rank(const SourceColumn &c) {
    const int name = nameRank(c.column.name);
    return std::make_tuple(c.column.notNull ? 0 : 1, name == 0 ? 0 : 1, c.column.indexed ? 0 : 1,
                           c.watermarkType == WatermarkType::Timestamp ? 0 : 1, name,
                           c.column.primaryKeyOrdinal > 0 ? 1 : 0);
}

} // namespace

QString watermarkQualities(const SourceColumn &column) {
    if (column.watermarkType == WatermarkType::None)
        return QString();
    QString text = (column.column.indexed ? QStringLiteral("indexed ") : QString()) +
                   watermarkTypeName(column.watermarkType);
    text += column.column.notNull ? QStringLiteral(", never null")
                                  : QStringLiteral(", may be null (rows with no value are never copied)");
    if (!column.column.indexed)
        text += QStringLiteral(", not indexed (each run scans the table)");
    if (column.column.primaryKeyOrdinal > 0)
        text += QStringLiteral(", primary key (follows new rows, not changed ones)");
    return text;
}

std::optional<WatermarkSuggestion> suggestWatermark(const QList<SourceColumn> &columns) {
    const SourceColumn *best = nullptr;
    for (const SourceColumn &c : columns) {
        if (c.watermarkType != WatermarkType::None && (!best || rank(c) < rank(*best)))
            best = &c; // the first of equals wins: the table's own order
    }
    if (!best)
        return std::nullopt;
    return WatermarkSuggestion{best->column.name,
                               QStringLiteral("%1: %2").arg(best->column.name, watermarkQualities(*best))};
}

} // namespace tidemark
