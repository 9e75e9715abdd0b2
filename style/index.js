import './sidebar.css';
import './settings-form.css';
