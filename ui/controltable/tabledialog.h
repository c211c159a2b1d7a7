// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/tablesetup.h"

#include <QDialog>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace tidemark {

class WorkspaceGateway;

// Adds or edits one control-table row against the live source: connection, then a table from
// its list, then watermark / tiebreak / key columns from that table's columns with their
// types. Broken rules are listed as the user edits (checkTableRules plus the checks that need
// the column types); OK validates once more against the source (prepareTable, off the GUI
// thread) and only then closes. The result is preparedSpec(); the caller stores it.
class TableDialog : public QDialog {
    Q_OBJECT
public:
    // `existing` = edit that table; none = add a new one.
    TableDialog(WorkspaceGateway *gateway, const std::optional<TableSpec> &existing,
                QWidget *parent = nullptr);

    TableDraft draft() const;
    QStringList problems() const { return m_problems; }
    // The spec prepareTable returned (valid once the dialog was accepted).
    const TableSpec &preparedSpec() const { return m_prepared; }
    bool columnsLoaded() const { return m_columnsLoaded; }

public slots:
    void accept() override;

signals:
    void columnsReady();

private:
    void buildUi();
    void loadConnections();
    void loadTables();
    void loadColumns();
    void fillColumns(const QList<SourceColumn> &columns);
    void revalidate();
    void setBusy(const QString &message);
    QStringList checkedKeys() const;
    const SourceColumn *sourceColumn(const QString &name) const;

    WorkspaceGateway *m_gateway;
    std::optional<TableSpec> m_existing;
    TableSpec m_prepared;
    QList<SourceColumn> m_columns;
    QStringList m_problems;
    bool m_columnsLoaded = false;
    bool m_validating = false;
    bool m_targetEdited = false;
    quint64 m_tablesRequest = 0;
    quint64 m_columnsRequest = 0;

    QComboBox *m_sourceConnection = nullptr;
    QComboBox *m_sourceTable = nullptr;
    QComboBox *m_targetConnection = nullptr;
    QLineEdit *m_targetTable = nullptr;
    QComboBox *m_mode = nullptr;
    QComboBox *m_watermark = nullptr;
    QComboBox *m_tiebreak = nullptr;
    QListWidget *m_keys = nullptr;
    QLineEdit *m_lookback = nullptr;
    QLineEdit *m_initialWatermark = nullptr;
    QSpinBox *m_maxSkipped = nullptr;
    QSpinBox *m_batchSize = nullptr;
    QCheckBox *m_expectRows = nullptr;
    QCheckBox *m_commitPerBatch = nullptr;
    QCheckBox *m_addNewColumns = nullptr;
    QCheckBox *m_active = nullptr;
    QLabel *m_problemLabel = nullptr;
    QLabel *m_busyLabel = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace tidemark
