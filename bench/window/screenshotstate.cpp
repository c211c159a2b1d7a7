// SPDX-License-Identifier: MIT
#include "bench/window/screenshotstate.h"

#include "model/engine/runcoordinator.h"
#include "model/models/iterationgridmodel.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/verifydialog.h"
#include "ui/controltable/watermarkhistorydialog.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/rejectedrowsdialog.h"
#include "ui/run/runpanel.h"
#include "ui/schedules/runnersetupdialog.h"
#include "ui/schedules/scheduledialog.h"
#include "ui/schedules/schedulespanel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QTableView>
#include <QTimer>

#include <cstdio>
#include <functional>

namespace tidemark {

namespace {

void announceReady() {
    std::fputs("screenshot-ready\n", stdout);
    std::fflush(stdout);
}

// Calls `action` once `view` shows rows (they are read off the GUI thread).
void whenRowsShown(QTableView *view, const std::function<void()> &action) {
    auto *poll = new QTimer(view);
    QObject::connect(poll, &QTimer::timeout, view, [view, poll, action] {
        if (view->model()->rowCount() == 0)
            return;
        poll->deleteLater();
        poll->stop();
        action();
    });
    poll->start(100);
}

void whenTablesShown(MainWindow &window, const std::function<void()> &action) {
    whenRowsShown(window.controlTable()->view(), action);
}

// Selects the first table, opens its dialog with `open`, and is ready once the dialog signals `done`.
template <typename Dialog, typename Signal>
void openForFirstTable(MainWindow &window, void (MainWindow::*open)(), Signal done) {
    whenTablesShown(window, [&window, open, done] {
        window.controlTable()->view()->selectRow(0);
        (window.*open)();
        QObject::connect(window.findChild<Dialog *>(), done, &window, announceReady);
    });
}

// Selects the run grid's row of `source`: its details show beside the grid, its progress where
// the window's layout puts it (a column fitted to the text would push the status off screen).
void selectIterationOf(MainWindow &window, const QString &source) {
    QTableView *grid = window.runPanel()->view();
    for (int row = 0; row < grid->model()->rowCount(); ++row) {
        if (grid->model()->index(row, IterationGridModel::Source).data().toString() == source) {
            grid->selectRow(row);
            return;
        }
    }
}

void runAllThen(MainWindow &window, const std::function<void(const RunRecord &)> &done) {
    whenTablesShown(window, [&window, done] {
        QObject::connect(window.coordinator(), &RunCoordinator::runFinished, &window, done,
                         Qt::SingleShotConnection);
        window.runAll();
    });
}

void enterScreenshotState(MainWindow &window, const QString &state) {
    if (state == QLatin1String("main")) {
        runAllThen(window, [&window](const RunRecord &) {
            QTimer::singleShot(700, &window, [&window] {
                window.showHistory();
                QTimer::singleShot(800, &window, announceReady);
            });
        });
    } else if (state == QLatin1String("running")) {
        runAllThen(window, [](const RunRecord &) {});
        // Ready when the streaming table is past a third of its window and has a rate to show.
        QObject::connect(window.coordinator(), &RunCoordinator::iterationChanged, &window,
                         [&window](const IterationRecord &record) {
                             static bool announced = false;
                             if (announced || record.status != IterationStatus::Running ||
                                 record.windowRows <= 0 || record.rowsRead * 3 < record.windowRows ||
                                 record.startedAt.msecsTo(QDateTime::currentDateTimeUtc()) < 1500)
                                 return;
                             announced = true;
                             selectIterationOf(window, record.source);
                             announceReady();
                         });
    } else if (state == QLatin1String("watermark-history")) {
        openForFirstTable<WatermarkHistoryDialog>(window, &MainWindow::showWatermarkHistory,
                                                  &WatermarkHistoryDialog::loaded);
    } else if (state == QLatin1String("rejected-rows")) {
        runAllThen(window, [&window](const RunRecord &run) {
            for (const IterationRecord &iteration : run.iterations) {
                if (iteration.rowsSkipped > 0) {
                    window.showRejectedRows(iteration);
                    // The first one selected, so the pane below shows it whole.
                    QTableView *rows = window.findChild<RejectedRowsDialog *>()->view();
                    whenRowsShown(rows, [rows] {
                        rows->selectRow(0);
                        announceReady();
                    });
                    return;
                }
            }
        });
    } else if (state == QLatin1String("verify")) {
        openForFirstTable<VerifyDialog>(window, &MainWindow::verifySelected, &VerifyDialog::verifyFinished);
    } else if (state == QLatin1String("add-schedule")) {
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("schedulesDock"));
        dock->show();
        dock->raise();
        SchedulesPanel *panel = window.schedulesPanel();
        QObject::connect(
            panel, &SchedulesPanel::reloaded, panel,
            [panel] {
                panel->addSchedule();
                QTimer::singleShot(1500, panel, announceReady); // the dialog reads the tables first
            },
            Qt::SingleShotConnection);
    } else if (state == QLatin1String("runner-setup")) {
        QTimer::singleShot(1000, &window, [&window] {
            window.setUpRunner();
            QTimer::singleShot(800, &window, announceReady);
        });
    } else if (state == QLatin1String("history-table")) {
        runAllThen(window, [&window](const RunRecord &) {
            QTimer::singleShot(700, &window, [&window] {
                window.showHistory();
                auto *filter = window.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
                filter->setCurrentIndex(1); // the first table
                QTimer::singleShot(1200, &window, announceReady);
            });
        });
    } else if (state == QLatin1String("schedules")) {
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("schedulesDock"));
        dock->show();
        dock->raise();
        SchedulesPanel *panel = window.schedulesPanel();
        QObject::connect(
            panel, &SchedulesPanel::reloaded, panel,
            [panel] {
                panel->view()->selectRow(0);
                announceReady();
            },
            Qt::SingleShotConnection);
    }
}

} // namespace

ScreenshotState::ScreenshotState(MainWindow *window, const QString &state)
    : QObject(window) {
    // Maximized by the window manager, title bar and all, as a user sees it; the whole screen
    // where there is none.
    window->setGeometry(QGuiApplication::primaryScreen()->geometry());
    window->setWindowState(window->windowState() | Qt::WindowMaximized);
    if (state == QLatin1String("welcome")) {
        QTimer::singleShot(1500, this, announceReady);
        return;
    }
    connect(
        window, &MainWindow::workspaceOpened, this, [window, state] { enterScreenshotState(*window, state); },
        Qt::SingleShotConnection);
}

} // namespace tidemark
