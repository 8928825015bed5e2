#pragma once
// The editor of one metadata value (Metadata page › Edit…, Add Key…, or an array element): a
// line for numbers, a check box for booleans, a multi-line editor for strings (chat templates)
// and arrays (a JSON list). Every change is checked with gguf::parseValueText, so a number out
// of its type's range (300 as a u8) or a malformed list disables OK and says why. For the
// special-token keys (tokenizer.ggml.*_token_id) a token can be picked by searching the
// vocabulary (SpecialTokenPicker).

#include "core/gguf/Model.h"
#include "core/write/GgufWriter.h"

#include <QDialog>
#include <functional>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedWidget;
class SpecialTokenPicker;

class MetadataValueEditor : public QDialog {
    Q_OBJECT
public:
    enum class Mode { EditValue, AddKey };

    // `typeName`: "u32", "str", "arr[str]", ...; fixed when editing, the initial choice when adding.
    MetadataValueEditor(Mode mode, std::shared_ptr<const gguf::Model> model, const QString& key, const QString& typeName,
                        const QString& valueText, QWidget* parent = nullptr);

    QString key() const;
    QString typeName() const;
    QString valueText() const;
    void setKey(const QString& key);
    void setTypeName(const QString& typeName);
    void setValueText(const QString& text);
    // The value as typed, when it is valid for the type.
    std::optional<gguf::EncodedValue> value() const;
    // Whether the value differs from the one the editor opened with (OK on an untouched value
    // is no edit).
    bool changed() const;
    // Adding a key: `taken(key)` says the model has it already; OK stays disabled and says so.
    void setKeyTaken(std::function<bool(const QString& key)> taken);
    QString problem() const;  // why OK is disabled; empty when it is not
    bool canAccept() const;
    SpecialTokenPicker* tokenPicker() const { return m_picker; }

private:
    void showEditorForType();
    void validate();

    Mode m_mode;
    QLineEdit* m_key;
    QComboBox* m_type;
    QStackedWidget* m_editors;
    QLineEdit* m_line;
    QCheckBox* m_check;
    QPlainTextEdit* m_text;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
    SpecialTokenPicker* m_picker = nullptr;
    QString m_openedWith;                       // the value text the editor opened with
    std::function<bool(const QString&)> m_keyTaken;
};
