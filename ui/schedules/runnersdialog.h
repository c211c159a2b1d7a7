// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

#include <QDialog>
#include <QTimer>
#include <optional>

class QLabel;
class QStandardItemModel;
class QTableView;

namespace tidemark {

class WorkspaceGateway;

// Run › Runners…: the workspace's runners as `tidemark-cli runners` lists them (the one that fires
// schedules, then each that takes queued work: alive or stopped, slots busy, last beat), read
// through the window's gateway when it opens and every two seconds while it is shown.
class RunnersDialog : public QDialog {
    Q_OBJECT
public:
    RunnersDialog(WorkspaceGateway *gateway, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    QStandardItemModel *model() const { return m_model; }
    void reload();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    struct Read {
        std::optional<RunnerHeartbeat> scheduler;
        QList<FleetRunner> fleet;
    };
    void display(const Read &read);

    WorkspaceGateway *m_gateway;
    QTableView *m_view;
    QStandardItemModel *m_model;
    QLabel *m_summary;
    QTimer m_refresh;
};

} // namespace tidemark
