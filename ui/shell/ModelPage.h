#pragma once
// One open model: its pages (overview, metadata, tokenizer, tensors) in tabs; it opens on the
// overview. A banner above them says when the file changed on disk while open. It remembers the
// importance matrix opened for it, which Compare, Recipe and Convert then start with.

#include "core/gguf/Model.h"

#include <QWidget>
#include <memory>

class FileChangeWatcher;
class MetadataPage;
class QLabel;
class QTabWidget;
class TensorBrowser;
class TensorViewPage;

class ModelPage : public QWidget {
    Q_OBJECT
public:
    explicit ModelPage(std::shared_ptr<const gguf::Model> model, QWidget* parent = nullptr);
    const gguf::Model& model() const { return *m_model; }
    std::shared_ptr<const gguf::Model> sharedModel() const { return m_model; }
    QTabWidget* pages() const { return m_pages; }
    FileChangeWatcher* changeWatcher() const { return m_changeWatcher; }
    TensorBrowser* tensorBrowser() const { return m_browser; }
    TensorViewPage* tensorPage() const { return m_tensorPage; }
    MetadataPage* metadataPage() const { return m_metadata; }
    // Metadata edits not saved yet (the window asks before they are dropped).
    bool hasUnsavedEdits() const;
    void showTensorsPage();
    // The importance matrix opened for this model (File › Open Importance Matrix, checked
    // against it without errors) while its page is open; empty when none.
    QString importanceMatrixPath() const { return m_importanceMatrixPath; }
    void setImportanceMatrixPath(const QString& path) { m_importanceMatrixPath = path; }

signals:
    void statusMessage(bool succeeded, const QString& message);
    void unsavedEditsChanged(bool unsaved);

private:
    QWidget* createTensorsPage();
    QWidget* createChangeBanner();

    std::shared_ptr<const gguf::Model> m_model;
    QTabWidget* m_pages;
    QWidget* m_tensorsPage = nullptr;
    TensorBrowser* m_browser = nullptr;
    TensorViewPage* m_tensorPage = nullptr;
    MetadataPage* m_metadata = nullptr;
    QLabel* m_changeBanner = nullptr;
    FileChangeWatcher* m_changeWatcher = nullptr;
    QString m_importanceMatrixPath;
};
