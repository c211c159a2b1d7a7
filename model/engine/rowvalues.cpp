// SPDX-License-Identifier: MIT
#include "model/engine/rowvalues.h"

#include "model/common/error.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace tidemark {

Watermark watermarkFromCell(const RowBatch &batch, const Cell &cell) {
    switch (cell.type) {
    case CellType::Integer:
        return Watermark::integer(cell.integer);
    case CellType::Text: {
        const std::string_view bytes = batch.bytes(cell);
        const QString text = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
        if (auto watermark = Watermark::timestamp(text))
            return *watermark;
        throw Error(QStringLiteral("watermark value '%1' is not an ISO-8601 timestamp").arg(text));
    }
    case CellType::Null:
        throw Error(QStringLiteral("a NULL watermark reached the window"));
    default:
        throw Error(
            QStringLiteral("the watermark column holds a value that is neither an integer nor a timestamp"));
    }
}

QVariant cellToVariant(const RowBatch &batch, const Cell &cell) {
    switch (cell.type) {
    case CellType::Null:
        return QVariant();
    case CellType::Integer:
        return QVariant(qint64(cell.integer));
    case CellType::Real:
        return QVariant(cell.real);
    case CellType::Text: {
        const std::string_view bytes = batch.bytes(cell);
        return QVariant(QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
    }
    case CellType::Blob: {
        const std::string_view bytes = batch.bytes(cell);
        return QVariant(QByteArray(bytes.data(), qsizetype(bytes.size())));
    }
    }
    return QVariant();
}

QString rowToJson(const RowBatch &batch, int row, const QStringList &batchColumns,
                  const QStringList &columns) {
    QJsonObject object;
    for (const QString &column : columns) {
        const int index = int(batchColumns.indexOf(column));
        if (index < 0)
            continue;
        const QVariant value = cellToVariant(batch, batch.cell(row, index));
        if (value.typeId() == QMetaType::QByteArray)
            object.insert(column, QString::fromLatin1(value.toByteArray().toHex()));
        else
            object.insert(column, QJsonValue::fromVariant(value));
    }
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

} // namespace tidemark
