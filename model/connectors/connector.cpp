// SPDX-License-Identifier: MIT
#include "model/connectors/connector.h"

#include <algorithm>

namespace tidemark {

QStringList TableSchema::primaryKey() const {
    QList<const ColumnInfo *> keyed;
    for (const ColumnInfo &info : columns) {
        if (info.primaryKeyOrdinal > 0)
            keyed.append(&info);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const ColumnInfo *a, const ColumnInfo *b) {
        return a->primaryKeyOrdinal < b->primaryKeyOrdinal;
    });
    QStringList names;
    for (const ColumnInfo *info : keyed)
        names << info->name;
    return names;
}

const ColumnInfo *TableSchema::column(const QString &name) const {
    for (const ColumnInfo &info : columns) {
        if (info.name == name)
            return &info;
    }
    return nullptr;
}

QStringList TableSchema::columnNames() const {
    QStringList names;
    names.reserve(columns.size());
    for (const ColumnInfo &info : columns)
        names << info.name;
    return names;
}

} // namespace tidemark
