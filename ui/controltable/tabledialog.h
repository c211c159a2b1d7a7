// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/sourcecatalog.h"
#include "model/engine/tablesetup.h"

#include <QDialog>
#include <QHash>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;
class QTimer;

namespace tidemark {

class RemoteWorkQueue;
class WorkspaceGateway;

// Adds or edits one control-table row against the live source: connection, then a table from
// its list, then watermark / tiebreak / key columns from that table's columns with their
// types. The connections come from the workspace (the gateway); everything that reaches a
// source — listing its tables, describing a table, finding a target that answers, the final
// check — runs on a RemoteWorkQueue of the dialog's own, each on a lane that a newer request
// supersedes. The columns are read for a committed choice only: a table picked from the list,
// or typed and confirmed (Enter, leaving the field, or a pause in typing). The watermark
// column is suggested (suggestWatermark) with its reason once the user has picked a table. A
// new table's connections start empty, or as the pair every existing table uses; nothing else
// is chosen for the user. Broken rules are listed in the user's
// words as they edit (checkTableRules with Wording::Window plus the checks that need the
// column types); OK validates once more against the source (prepareTable) and only then
// closes. The result is preparedSpec(); the caller stores it. Rows keep their height as
// fields fill in: the status, reason and problem lines reserve theirs.
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
    // Remote work not yet answered (listing, describing, checking): for tests.
    bool remoteWorkPending() const;

public slots:
    void accept() override;
    void reject() override;

signals:
    void columnsReady();

private:
    void buildUi();
    void loadConnections();
    // `source` and `target` preselect a new table's connections (empty: none).
    void fillConnections(const QList<ConnectionSpec> &connections, const QString &source,
                         const QString &target);
    void sourceConnectionChanged();
    void loadTables();
    void sourceTableEdited(const QString &text);
    void commitSourceTable(); // describe the table now if it is one of the list
    void loadColumns();
    void fillColumns(const QList<SourceColumn> &columns);
    void showWatermarkReason();
    void revalidate();
    void showProblems(const QStringList &problems);
    // The field a problem (in the dialog's words) is about; null when it names none.
    QWidget *fieldAtFault(const QString &problem) const;
    void focusFaultyField();
    // One status line per lane of work; the label shows the most pressing.
    void setStatus(const QString &lane, const QString &message);
    std::optional<ConnectionSpec> connectionNamed(const QString &name) const;
    QStringList checkedKeys() const;
    const SourceColumn *sourceColumn(const QString &name) const;

    WorkspaceGateway *m_gateway;
    RemoteWorkQueue *m_remote;
    QTimer *m_describeDelay;
    std::optional<TableSpec> m_existing;
    TableSpec m_prepared;
    QList<ConnectionSpec> m_connections;
    QStringList m_tableNames; // the source connection's tables, as listed
    QString m_describedTable; // the table m_columns belong to (or are being read for)
    QString m_suggestedWatermark;
    QList<SourceColumn> m_columns;
    QStringList m_problems;
    QHash<QString, QString> m_statuses; // lane -> message
    bool m_columnsLoaded = false;
    bool m_validating = false;
    bool m_targetEdited = false;

    QComboBox *m_sourceConnection = nullptr;
    QComboBox *m_sourceTable = nullptr;
    QComboBox *m_targetConnection = nullptr;
    QLineEdit *m_targetTable = nullptr;
    QComboBox *m_mode = nullptr;
    QComboBox *m_watermark = nullptr;
    QComboBox *m_sourceZone = nullptr; // TableSpec::sourceTimezone; "UTC" for none
    QComboBox *m_tiebreak = nullptr;
    QListWidget *m_keys = nullptr;
    QLineEdit *m_lookback = nullptr;
    QLineEdit *m_staleAfter = nullptr;
    QComboBox *m_deletes = nullptr; // DeletePolicy's action as the CLI spells it: ignore, remove, mark:COL
    QLineEdit *m_initialWatermark = nullptr;
    QSpinBox *m_maxSkipped = nullptr;
    QSpinBox *m_batchSize = nullptr;
    QCheckBox *m_expectRows = nullptr;
    QCheckBox *m_commitPerBatch = nullptr;
    QCheckBox *m_addNewColumns = nullptr;
    QCheckBox *m_zeroDatesNull = nullptr; // TableSpec::zeroDates; MySQL/MariaDB sources only
    QCheckBox *m_active = nullptr;
    QLabel *m_watermarkReason = nullptr;
    QLabel *m_problemLabel = nullptr;
    QLabel *m_busyLabel = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace tidemark
